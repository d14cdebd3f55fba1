"""The wrappers coding agents put around an edit, taken off before the edit is read.

Agents rarely print a bare config: Codex prints ``*** Begin Patch`` / ``*** Update File: path`` /
``@@`` hunks, aider prints ``<<<<<<< SEARCH`` … ``=======`` … ``>>>>>>> REPLACE`` blocks, Cursor
prints the changed lines of a file between ``# ... existing code ...`` markers (indented as in
the file), and a Dockerfile carries the launch as a JSON array (``CMD ["torchrun", "--x", "1"]``).
Each becomes what the readers already understand: a unified diff (the old side rejected, the new
side suggested, one diff per file), the changed lines dedented, or the command line. Text is only
rewritten, never run.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
import textwrap

from skill_tools.config import pysource
from skill_tools.config.model import SECTIONS
from skill_tools.evaluation.lua_tables import lua_module

_PATCH_BEGIN = re.compile(r"^\*\*\* Begin Patch\s*$", re.M)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File:\s*(\S+)", re.M)
_SEARCH = re.compile(r"^<{5,9} SEARCH\b.*$", re.M)
_DIVIDER = re.compile(r"^={5,9}\s*$")
_REPLACE = re.compile(r"^>{5,9} REPLACE\b.*$")
#: "# ... existing code ...", "// ... rest of file ...", "# ...": lines an editor leaves out.
_ELIDED = re.compile(r"^\s*(?:#|//|--|;)\s*(?:\.\.\.|…)(?:\s*(?:existing|rest|unchanged|other|previous|more)\b.*)?$", re.I)
_DOCKER_ARRAY = re.compile(r"^(\s*)(?:CMD|ENTRYPOINT|RUN)\s*(\[.*?\])\s*$", re.M | re.S)
#: A job file's ``args = ["--x", "1",]`` (Nomad HCL, TOML; YAML and Python read their own lists).
_KEYED_ARRAY = re.compile(r"^(\s*)(?:args|command|cmd|entrypoint|arguments|argv)\s*=\s*(\[.*?\])\s*,?\s*$", re.M | re.S)


#: ``'model.cuda_graph_impl' = 'full_iteration'`` (a PowerShell hashtable), ``'model.x' => 'y',`` (Perl),
#: ``["model.x"] = "y",`` (Lua): a quoted dotted key paired with a value, one per line.
QUOTED_PAIR = re.compile(r"^\s*\[?(['\"])([A-Za-z_]\w*(?:\.\w+)+)\1\]?\s*(?:=>|=|:)\s*(['\"]?)([^'\"#\n]*?)\3\s*[,;]?\s*(?:#.*|//.*|--.*)?$")


_LINE_COMMENT = re.compile(r'("(?:[^"\\\n]|\\.)*")|\s*//[^\n]*')
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def jsonc(body: str) -> str | None:
    """JSON with ``//`` comments and trailing commas (VS Code's launch.json, tsconfig) as plain JSON;
    None when it is not JSON once they are gone. Strings are kept whole (a URL's ``//`` stays)."""
    import json

    plain = _TRAILING_COMMA.sub(r"\1", _LINE_COMMENT.sub(lambda m: m.group(1) or "", body))
    try:
        return plain if isinstance(json.loads(plain), (dict, list)) else None
    except (ValueError, RecursionError):
        return None


def quoted_pairs(body: str) -> str | None:
    """The Hydra override lines of a block whose settings are quoted dotted pairs (at least two),
    when it is not Python (a Python dict of dotted keys has its own reader, lists and all)."""
    pairs = [m for m in (QUOTED_PAIR.match(ln) for ln in body.split("\n")) if m]
    if len(pairs) < 2:
        return None
    try:
        pysource.parse(textwrap.dedent(body))
        return None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    return "\n".join(f"{m.group(2)}={m.group(4).strip()}" for m in pairs)


def unwrap(body: str, kind: str) -> tuple[str, str]:
    """(``body`` without its envelope, the kind to read it as): ``diff`` for a patch or a
    SEARCH/REPLACE edit, else ``kind`` unchanged."""
    if kind in ("auto", "shell") and not body.lstrip().startswith("{") and (pairs := quoted_pairs(body)):
        return pairs, "shell"
    if kind in ("auto", "json") and "//" in body and (doc := jsonc(body)) is not None:
        return doc, "json"
    if _PATCH_BEGIN.search(body):
        return _apply_patch(body), "diff"
    if body.lstrip().startswith("[") and '"op"' in body:
        doc = json_patch(body)
        if doc is not None:
            return doc, "json"
    if kind in ("auto", "yaml", "hcl", "hocon", "conf", "lua") and _BRACE_OPEN.search(body):
        doc = braced_to_yaml(body)
        if doc is not None:
            return doc, "yaml"
    if body.lstrip().startswith("{") and _PAYLOAD_KEY.search(body):
        payload = tool_payload(body)
        if payload is not None:
            return payload, "auto"
    if _SEARCH.search(body) and any(_REPLACE.match(ln) for ln in body.split("\n")):
        return _search_replace(body), "diff"
    if any(_ELIDED.match(ln) for ln in body.split("\n")):
        kept = [ln for ln in body.split("\n") if not _ELIDED.match(ln)]
        body = textwrap.dedent("\n".join(kept))
    if "[" in body and re.search(r"^\s*(?:CMD|ENTRYPOINT|RUN)\s*\[", body, re.M):
        body = _docker_arrays(body)
    if kind not in ("python", "yaml", "json") and _KEYED_ARRAY.search(body) and _parsed(body) is None:
        body = _docker_arrays(body, _KEYED_ARRAY)
    if kind in ("shell", "auto") and "," in body and re.search(r"\s(?:-m|--multirun)(?:\s|$)", body):
        body = _SWEEP.sub(_first_of_sweep, body)
    return body, kind


#: The argument of an agent's tool call that carries what it writes (an edit's new text, a file's
#: content, a shell command).
_PAYLOAD_KEYS = ("new_string", "new_str", "new_text", "replacement", "content", "file_text", "contents", "command",
                 "cmd", "code", "patch", "input")
_PAYLOAD_KEY = re.compile(r'"(?:' + "|".join(_PAYLOAD_KEYS) + r')\\?"\s*:')


#: A document's key for the config it recommends ("fixed_config", "after", "recommended") and for
#: the one it starts from ("input", "before", "original"): :func:`keys.normalise_keys` keeps the first.
RESULT_KEY = re.compile(r"^(?:fixed|fixed_config|corrected|corrected_config|after|recommended|recommendation|"
                        r"suggested|suggested_config|proposed|proposed_config|new_config|result|final|final_config)$", re.I)
SOURCE_KEY = re.compile(r"^(?:input|before|original|original_config|current|current_config|old|old_config|"
                        r"given|user_config)$", re.I)


def tool_payload(body: str) -> str | None:
    """What a tool call written as JSON writes or runs (``{"tool": "edit_file", "new_string": "…"}``,
    ``{"name": "bash", "arguments": "{\\"command\\": …}"}``): its payload text, or None when
    ``body`` is no such call. A config file that merely has a ``content`` key is not one: the
    payload must be a string of more than one word or line."""
    import json

    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(obj, dict) and any(RESULT_KEY.match(str(k)) and isinstance(v, dict) for k, v in obj.items()):
        return None  # a report that carries the fixed config ({"command": …, "fixed_config": {…}}): read whole
    for _ in range(3):  # {"input": {...}}, {"function": {"arguments": "{...}"}}
        if not isinstance(obj, dict):
            return None
        for key in _PAYLOAD_KEYS:
            value = obj.get(key)
            if isinstance(value, str) and (" " in value.strip() or "\n" in value.strip()):
                return value
        inner = obj.get("input") or obj.get("arguments") or obj.get("parameters") or obj.get("function")
        if isinstance(inner, str):
            try:
                inner = json.loads(inner)
            except (ValueError, RecursionError):
                return None
        obj = inner
    return None


#: Jsonnet's field separators too: ``model+: {`` merges into the base, ``x:: 1`` is a hidden field.
_BRACE_OPEN = re.compile(r"^\s*[A-Za-z_][\w.-]*\s*(?:\+?:{1,3}|=)?\s*\{\s*(?:#.*|//.*)?$", re.M)
_BRACE_KV = re.compile(r"^([A-Za-z_][\w.-]*)\s*(?:\+?:{1,3}|=)\s*(.+?)\s*,?\s*$")


def braced_to_yaml(body: str) -> str | None:
    """A config of braced blocks (HOCON ``model { cuda_graph_impl: "local" }``, HCL ``model { x = 1 }``)
    as the YAML mapping it means; None when a line is neither a block, a ``key: value`` /
    ``key = value`` pair, a comment nor a closing brace, or the braces do not balance."""
    out: list[str] = []
    depth, opened = 0, False
    body, table = lua_module(body)
    lines = body.split("\n")
    code = [i for i, ln in enumerate(lines) if ln.strip() and not ln.strip().startswith(("#", "//"))]
    if len(code) > 2 and lines[code[0]].strip() == "{" and lines[code[-1]].strip() in ("}", "},"):
        lines[code[0]] = lines[code[-1]] = ""  # JSON5 / a JS object: the root braces hold the sections
    for line in lines:
        text = re.sub(r"\s(?://|#).*$", "", line).strip()
        if not text or text.startswith(("#", "//")):
            out.append("")
            continue
        m = _BRACE_OPEN.match(text)
        if m:
            out.append("  " * depth + re.split(r"\s*\+?[:={]", text, maxsplit=1)[0] + ":")
            depth, opened = depth + 1, True
            continue
        if text in ("}", "},"):
            depth -= 1
            if depth < 0:
                return None
            continue
        kv = _BRACE_KV.match(text)
        if kv is None or kv.group(2).endswith("{"):
            return None
        value = kv.group(2)
        if table is not None and re.fullmatch(r"\{[^{}=]*\}", value):
            value = "[" + value[1:-1].strip().rstrip(",") + "]"  # a Lua array: { "attn", "mlp" }
        elif table is not None and value in ('"null"', "'null'", "nil"):
            value = "null"  # a table cannot hold nil: the override string "null" is how it clears a key
        out.append("  " * depth + f"{kv.group(1)}: {value}")
    return "\n".join(out) if opened and depth == 0 else None


def json_patch(body: str) -> str | None:
    """A JSON Patch (RFC 6902: ``[{"op": "replace", "path": "/model/cuda_graph_impl", "value": "local"}]``)
    as the JSON object its ``add``/``replace`` operations write; None when ``body`` is no patch. A path
    into a list (``/model/cuda_graph_modules/-``) names no whole value and is skipped."""
    import json

    try:
        ops = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not (isinstance(ops, list) and ops and all(isinstance(o, dict) and "op" in o and "path" in o for o in ops)):
        return None
    out: dict = {}
    for op in ops:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in str(op["path"]).split("/")[1:]]
        if op["op"] not in ("add", "replace") or "value" not in op or not parts or \
                any(p == "-" or p.isdigit() or not p for p in parts):
            continue
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {}) if isinstance(node.get(p, {}), dict) else {}
        node[parts[-1]] = op["value"]
    return json.dumps(out)


#: A Hydra override whose value sweeps (``model.cuda_graph_modules=[attn],[attn,mlp]`` under ``-m``).
_SWEEP = re.compile(r"(?<![\w.-])((?:[+~]{0,2})[A-Za-z_]\w*(?:\.\w+)+=)([^\s'\"]+)")


def _first_of_sweep(m: re.Match[str]) -> str:
    """The first value of a sweep: the run a multirun starts with (the others are its A/B)."""
    depth, value = 0, m.group(2)
    for i, ch in enumerate(value):
        depth += ch in "[({"
        depth -= ch in "])}"
        if ch == "," and depth == 0:
            return m.group(1) + value[:i]
    return m.group(0)


def _apply_patch(body: str) -> str:
    """Codex's patch format as a unified diff, one ``--- a/f`` / ``+++ b/f`` header per file."""
    out: list[str] = []
    adding = False
    for line in body.split("\n"):
        m = _PATCH_FILE.match(line)
        if m:
            out += [f"--- a/{m.group(1)}", f"+++ b/{m.group(1)}"]
            adding = line.startswith("*** Add File")
            continue
        if line.startswith("***"):  # Begin/End Patch, End of File, Move to
            continue
        if line.startswith("@@"):
            out.append("@@")
            continue
        out.append("+" + line if adding and not line.startswith("+") else line)
    return "\n".join(out)


def _search_replace(body: str) -> str:
    """aider's SEARCH/REPLACE blocks as diff lines: the searched text removed, the replacement added."""
    out: list[str] = []
    side = None
    for line in body.split("\n"):
        if _SEARCH.match(line):
            side = "-"
            out.append("@@")
        elif side == "-" and _DIVIDER.match(line):
            side = "+"
        elif side == "+" and _REPLACE.match(line):
            side = None
        elif side is not None:
            out.append(side + line)
    return "\n".join(out)


def _docker_arrays(body: str, pattern: re.Pattern[str] = _DOCKER_ARRAY) -> str:
    """``CMD ["torchrun", "--x", "1"]`` (continued over lines with ``\\``), a job file's ``args = ["--x",
    "1",]``, as the command line it runs (only a list of plain strings; anything else is left as is)."""
    joined = re.sub(r"\\\s*\n", " ", body)

    def command(m: re.Match[str]) -> str:
        try:
            argv = json.loads(_TRAILING_COMMA.sub(r"\1", m.group(2)))
        except ValueError:
            return m.group(0)
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            return m.group(0)
        return m.group(1) + shlex.join(argv)

    return pattern.sub(command, joined)


def _parsed(body: str) -> ast.Module | None:
    """``body`` parsed as Python (never run), or None when it is not Python."""
    try:
        return pysource.parse(body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def argv_commands(body: str) -> list[str]:
    """Command lines Python code spells as argv lists (``["torchrun", "x.py", "--cuda-graph-impl",
    "local"]``): each list of plain strings with a ``--flag`` in it, joined as a shell would read it.
    Parsed with ``ast``, never run."""
    tree = _parsed(body)
    if tree is None:
        return []
    out = []
    for node in ast.walk(tree):
        items = [e for e in getattr(node, "elts", []) if not isinstance(e, ast.Starred)]  # *sys.argv[1:]
        if isinstance(node, (ast.List, ast.Tuple)) and items and \
                all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items):
            argv = [e.value for e in items]
            if any(a.startswith("--") for a in argv):
                out.append(shlex.join(argv))
    return out[:8]


def nested_override_dicts(body: str) -> list[str]:
    """Dict literals keyed by config sections, passed to a call (``OmegaConf.create({"model":
    {...}, "rng": {...}})``) or assigned (``overrides = {"model": {...}}``), as JSON for the canonical reader. ``ast.literal_eval`` on the dict
    node only: constants, nothing run."""
    tree = _parsed(body)
    if tree is None:
        return []
    out = []
    for node in ast.walk(tree):
        values = node.args if isinstance(node, ast.Call) else [node.value] if isinstance(node, ast.Assign) else []
        for arg in values:  # OmegaConf.create({...}) or overrides = {...}
            if isinstance(arg, ast.Dict) and any(isinstance(k, ast.Constant) and k.value in SECTIONS
                                                 for k in arg.keys):
                try:
                    out.append(json.dumps(ast.literal_eval(arg)))
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    continue
    return out[:8]



#: A chat transcript line: "[14:02] sam: …", "14:02 <sam> …", "**sam** (14:02): …".
_CHAT_LINE = re.compile(r"^\s*(?:\[?\d{1,2}:\d{2}(?::\d{2})?\]?\s*<?([\w.-]{1,30})>?:?|\*\*([\w.-]{1,30})\*\*\s*\(\d{1,2}:\d{2}\):)\s")


def chat_speaker(line: str) -> str | None:
    m = _CHAT_LINE.match(line)
    return (m.group(1) or m.group(2)).lower() if m else None


def chat_asker(lines: list[str]) -> str | None:
    """In a chat transcript (three or more timestamped lines, two speakers or more), the speaker of
    the first line: the one who asks. Their settings are the setup they describe, not advice."""
    speakers = [s for s in (chat_speaker(ln) for ln in lines[:400]) if s]
    if len(speakers) < 3 or len(set(speakers)) < 2:
        return None
    return speakers[0]


_NOTEBOOK_START = re.compile(r'^\s*\{\s*"(?:cells|metadata|nbformat)"')


def notebook_as_markdown(text: str) -> str | None:
    """A Jupyter notebook (``.ipynb`` JSON) as the Markdown a reader sees: Markdown cells as they
    are, code cells as fenced blocks of the notebook's language, outputs left out (what a cell
    printed is not advice). None when ``text`` is not a notebook."""
    if not _NOTEBOOK_START.match(text):
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) and "cell_type" in c for c in cells):
        return None
    kernel = doc.get("metadata", {}).get("kernelspec", {}) if isinstance(doc.get("metadata"), dict) else {}
    lang = str(kernel.get("language") or "python") if isinstance(kernel, dict) else "python"
    parts = []
    for cell in cells:
        source = cell.get("source", "")
        source = "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else str(source)
        if cell["cell_type"] == "code":
            parts.append(f"```{'bash' if source.lstrip().startswith(('!', '%%bash')) else lang}\n{source.rstrip()}\n```")
        else:
            parts.append(source.rstrip())
    return "\n\n".join(parts) + "\n"
