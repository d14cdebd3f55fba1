"""Config written without a fence: a whole answer that *is* a YAML file, a launch script or a JSON
dict, a Markdown indented code block, a recipe excerpt between paragraphs of prose.

Outside fences the text is split into blank-line separated paragraphs. A paragraph is code when
every line of it looks like code (a YAML ``key: value`` line, a one-token list item, a JSON line,
a shell assignment, flag or launcher line, a ``cfg.x = …`` assignment, a diff header, a line
ending in ``\\``) and at least one does; comment lines are neutral. A paragraph indented four
spaces after a line of prose (not a list item) is a Markdown code block. Adjacent code paragraphs
form one run (a launch script's sections, a YAML file's blocks), read like a fenced block of a
guessed kind; comment paragraphs right after a run that spell out a config (a variant left
commented in the file) end it. A paragraph of prose is never code: "Note: this keeps shapes static." has words
after its colon.
"""

from __future__ import annotations

import ast
import re
import textwrap

from skill_tools.config import pysource
from skill_tools.evaluation.described import RULED_TITLE
from skill_tools.evaluation.envelopes import QUOTED_PAIR, braced_to_yaml

_YAML_KEY = re.compile(r"^(?![A-Z][a-z]\w*:)\s*(?:(?<=\s)-\s+)?[A-Za-z_][\w./-]*:\s*(?:$|#.*$|[^\s#\"'\[{][^\s#]*\s*(?:#.*)?$|\[[^\]]*\]\s*(?:#.*)?$|"
                       r"\"[^\"]*\"\s*(?:#.*)?$|'[^']*'\s*(?:#.*)?$|\{[^}]*\}\s*(?:#.*)?$)")
_YAML_ITEM = re.compile(r"^\s*-\s+(?:[\w.\"'/:+-]+|\[[^\]]*\])\s*(?:#.*)?$")
_JSON = re.compile(r"""^\s*(?:[{}\[\]],?|"[^"]+"\s*:\s*.+?,?|[\]}]\s*[,)]?|\{\s*"[^"]+"\s*:.*\},?)\s*(?:\#.*|//.*)?$""")
_SHELL = re.compile(r"^\s*(?:#!.*|export\s+[A-Za-z_]\w*=.*|[A-Za-z_][A-Za-z0-9_]*=(?:\S*|\"[^\"]*\"?|'[^']*'?)\s*(?:#.*|\\)?|"
                    r"--?[A-Za-z][\w-]*.*|(?:torchrun|python3?|srun|sbatch|mpirun|deepspeed|uv run|bash|sh|nsys|g?sed|perl|yq)\s+"
                    r"(?:\S*\.(?:py|sh)\b|-|\$).*|cd\s+\S+|set\s+-\w+|set\s+(?:-\w*x\w*|--export)\s+(?:-\w+\s+)*[A-Z][A-Z0-9_]+\s+\S.*|"
                    r"setenv\s+[A-Z][A-Z0-9_]+\s+\S.*|source\s+\S+|\)\s*|\$\{?\w+.*|.*\\)$")
_PYTHON = re.compile(r"^\s*(?:[A-Za-z_]\w*(?:\.\w+|\[[^\]]+\])*\.\w+\s*[+]?=\s*\S.*|"
                     r"(?:from|import)\s+\w[\w.]*.*|def\s+\w+\(.*\)\s*(?:->\s*[\w\[\], .]+)?:\s*|return\b.*|"
                     r"\w+\s*=\s*[\[{(]\s*|\w+\s*=\s*\{\s*[\"'].*\}\s*(?:#.*)?|\w+\s*=\s*(?:dict|list)\(.*|[\w\"']+\s*[:=]\s*.+,\s*(?:#.*)?|"
                     r"[)\]}]+\s*,?\s*|\w+\s*=\s*[A-Za-z_][\w.]*\(.*|[A-Za-z_][\w.]*\(.*\)\s*|"
                     r"[A-Za-z_][\w.]*\[[^\]\n]*\]\(.*\)\s*|"  # a kernel launch: softmax_kernel[(n_rows,)](y, x, BLOCK_SIZE=n)
                     r"\"[^\"]*\",?\s*(?:#.*)?|'[^']*',?\s*(?:#.*)?|"
                     r"[\"'][\w.]+[\"']\s*:\s*[\[{(]\s*(?:#.*)?|\w+(?:\s*,\s*\w+)+\s*=\s*[A-Za-z_][\w.]*\(.*|"
                     r"if\s+__name__\s*==\s*[\"']__main__[\"']\s*:|"
                     # the statements of a function body (a pytest that builds the config): lowercase
                     # keywords with code after them, never a sentence ("if you want X:" has no operator)
                     r"assert\s+\S.*|with\s+[\w.]+\(.*\)(?:\s+as\s+\w+)?\s*:\s*(?:#.*)?|(?:pass|continue|break)\s*|"
                     r"raise\s+[A-Z]\w*(?:\(.*\))?\s*|@[\w.]+(?:\(.*\))?\s*|(?:try|else|finally)\s*:\s*|"
                     r"except(?:\s+[\w.(), ]+(?:\s+as\s+\w+)?)?\s*:\s*|class\s+\w+(?:\([\w., ]*\))?\s*:\s*|"
                     r"(?:if|elif|while|for)\s+[^:]*(?:==|!=|<=|>=|\bin\b|\bnot\b|[()\[\].])[^:]*:\s*(?:#.*)?)$")
#: A Hydra override on its own line (a bash array of overrides): ``model.cuda_graph_impl=local``.
_OVERRIDE_LINE = re.compile(r"^\s*[\"']?[+~]{0,2}[A-Za-z_]\w*(?:\.\w+)+=(?:\[[^\]\n]*\]|[^\s\"']*)[\"']?\s*\\?\s*$")
_DIFF = re.compile(r"^(?:---|\+\+\+|@@)(?:\s|$)|^[+-]\s*[A-Za-z_\"'-]|^diff --git \S|^index [0-9a-f]{4,}\.\.[0-9a-f]{4,}")
#: Dockerfile instructions, and the quoted words of a ``CMD [...]`` array continued over lines.
_DOCKER = re.compile(r"^\s*(?:(?:FROM|RUN|CMD|ENV|WORKDIR|COPY|ADD|ENTRYPOINT|ARG|LABEL|EXPOSE|USER|VOLUME|SHELL)\s+\S.*|"
                     r"(?:\"[^\"]*\"\s*,\s*)*\"[^\"]*\"\s*\]?\s*,?\s*\\?|\*{1,2}[\w.\[\]:]+,?)$")
_COMMENT = re.compile(r"^\s*(?:#|//|;)")
_LABEL = re.compile(r"^\s*[A-Za-z_][\w .-]*:\s*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S")


_SECTION = re.compile(r"^\s*\[[A-Za-z_][\w.]*\]\s*(?:[#;].*)?$|^\s*[A-Za-z_][\w.]*\s+=\s+[^\s;#]+\s*(?:[#;].*)?$")
_INI_COMMENT = re.compile(r"^\s*;")


#: A braced block's opening line (HOCON, HCL): ``model {``.
_BRACE_OPEN = re.compile(r"^\s*[a-z_][\w.-]*(?:\s+\"[^\"\n]*\")*\s*[:=]?\s*\{\s*(?:#.*|//.*)?$")  # and HCL's labels: job "x" {


#: A bare name assigned one literal (TOML or Python): ``cuda_graph_modules = ["attn", "moe_router"]  # …``.
_ASSIGN_LITERAL = re.compile(r"^\s*[A-Za-z_]\w*\s*=\s*(?:\[[^\]\n]*\]|\"[^\"\n]*\"|'[^'\n]*'|-?[\w.+-]+)\s*(?:#.*)?$")


def code_like(line: str) -> bool:
    if RULED_TITLE.match(line):  # a title set in rules: a heading in plain text, not a diff or YAML line
        return False
    return bool(_ASSIGN_LITERAL.match(line) or _SECTION.match(line) or _BRACE_OPEN.match(line) or _YAML_KEY.match(line) or _YAML_ITEM.match(line) or _JSON.match(line) or _SHELL.match(line)
                or _PYTHON.match(line) or _DIFF.match(line) or _OVERRIDE_LINE.match(line) or _DOCKER.match(line))


def _bullet_only(line: str) -> bool:
    """A line that looks like code only as the removed side of a diff: a Markdown bullet."""
    return bool(_DIFF.match(line)) and line.lstrip().startswith("- ") and not (
        _YAML_KEY.match(line) or _YAML_ITEM.match(line) or _JSON.match(line) or _SHELL.match(line)
        or _PYTHON.match(line) or _OVERRIDE_LINE.match(line.lstrip()[2:]))


def _paragraphs(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    out, i = [], start
    while i < end:
        if not lines[i].strip():
            i += 1
            continue
        j = i
        while j < end and lines[j].strip():
            j += 1
        out.append((i, j))
        i = j
    return out


_RULE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")


def _kind(lines: list[str], lo: int, hi: int, prev: str | None) -> str:
    """'code', 'neutral' (comments only) or 'prose' for one paragraph."""
    body = lines[lo:hi]
    if all(_RULE.match(ln) for ln in body):
        return "prose"  # a Markdown thematic break ("---"): it separates sections, it passes no flag
    if all(_COMMENT.match(ln) for ln in body):
        return "neutral"
    indented = all(ln.startswith(("    ", "\t")) for ln in body)
    if indented and prev is not None and not _LIST.match(prev) and not prev.startswith(("    ", "\t")):
        return "code"  # a Markdown indented code block after a line of prose
    head = body[1] if body[0].startswith("$ ") and len(body) > 1 else body[0]  # "$ git diff" and its output
    if head.startswith(("diff --git ", "--- a/", "Index: ")) and any(ln.startswith("@@ ") for ln in body):
        return "code"  # a unified diff pasted without a fence
    if _json_object("\n".join(body)):
        return "code"  # a JSON document pasted without a fence (a tool's report, an overrides payload)
    code = [ln.strip() for ln in body if ln.strip() and not _COMMENT.match(ln)]
    if sum(bool(QUOTED_PAIR.match(ln)) for ln in body) >= 2 or \
            (len(code) > 2 and code[-1] == "}" and braced_to_yaml("\n".join(body))):  # a whole document, not a "},"-ended part
        return "code"  # 'model.x' = 'y' lines (PowerShell, Perl, Lua); braced blocks (JSON5, HOCON, HCL)
    real = [ln for ln in body if not _COMMENT.match(ln)]
    if real and all(_bullet_only(ln) or _LABEL.match(ln) for ln in real):
        return "prose"  # "- impl: `cuda_graph_impl: te`" lines with no "+" line: a Markdown list, not a diff
    if real and all(code_like(ln) for ln in real) and not all(_LABEL.match(ln) for ln in real):
        return "code"  # (a paragraph of "Config:" labels alone introduces code; it is not code)
    if _python_statements("\n".join(body), one_line=len(body) == 1) or (len(real) >= 3 and _yaml_document(body)):
        return "code"
    return "prose"


def _json_object(text: str) -> bool:
    """A paragraph that is one JSON object with a dotted config key or a config section in it, or
    with config statements in its strings (``"fix": ["cfg.model.cuda_graph_impl = \\"local\\"", …]``)."""
    import json

    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")) or len(text) > 200_000:
        return False
    try:
        doc = json.loads(text)
    except ValueError:
        return False
    return isinstance(doc, dict) and bool(re.search(r'"(?:model|rng|ddp|train|optimizer)[.":]|"(?:cfg|config|recipe)\.(?:model|rng|ddp)\.', text))


def _yaml_document(body: list[str]) -> bool:
    """A paragraph that is a YAML mapping with a config section or an environment section, nested
    (``variables:`` over ``NCCL_GRAPH_REGISTER: "0"`` in a conda environment.yml): prose ("Note: …")
    does not nest, and other documents (Helm values, manifests) keep being read line by line."""
    import yaml

    try:
        doc = yaml.safe_load(textwrap.dedent("\n".join(body)))
    except Exception:  # not YAML: the paragraph is read as prose
        return False
    from skill_tools.config.model import SECTIONS
    from skill_tools.evaluation.keys import _ENV_PARENTS

    from skill_tools.evaluation.keys import argv_key, mappings

    if any(isinstance(k, str) and argv_key(k) and isinstance(v, list) and sum(isinstance(x, str) and x.startswith("--") for x in v) >= 2
           for node in mappings(doc) for k, v in node.items()):
        return True  # `args:` over `- --cuda-graph-impl=…` items, at any depth: a launcher's argument list
    return isinstance(doc, dict) and len(doc) >= 2 and all(isinstance(k, str) and k.isidentifier() for k in doc) \
        and any(k in SECTIONS or k in _ENV_PARENTS for k in doc) \
        and any(isinstance(v, dict) and v and all(isinstance(k, str) and k.isidentifier() for k in v) for v in doc.values())



def _python_statements(text: str, one_line: bool = False) -> bool:
    """A paragraph that is Python as a whole (a dict literal spread over lines, a class, a def) and
    binds or defines something: no English paragraph parses so, and a bare name ("Yes") binds nothing.
    One line counts only as a name bound to a list, dict or tuple (``GRAPHED = ["attn"]``)."""
    import ast

    from skill_tools.config import pysource

    try:
        tree = pysource.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if one_line:
        node = tree.body[0] if len(tree.body) == 1 else None
        return isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, (ast.List, ast.Dict, ast.Tuple)) \
            and all(isinstance(t, ast.Name) for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
    return bool(tree.body) and all(isinstance(n, (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef, ast.Import,
                                                  ast.ImportFrom, ast.AugAssign)) or
                                   (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)) for n in tree.body)


def code_runs(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """Line ranges ``[lo, hi)`` between ``start`` and ``end`` that hold unfenced code."""
    paras = _paragraphs(lines, start, end)
    kinds, prev = [], None
    for lo, hi in paras:
        kinds.append(_kind(lines, lo, hi, prev))
        prev = lines[hi - 1]
    runs: list[tuple[int, int]] = []
    for (lo, hi), kind in zip(paras, kinds):
        if kind != "code":
            continue
        if runs and _joinable(lines, paras, kinds, runs[-1][1], lo):
            runs[-1] = (runs[-1][0], hi)
        else:
            runs.append((lo, hi))
    # a leading comment paragraph belongs to the code right after it (a script's header)
    out = []
    for lo, hi in runs:
        k = paras.index(next(p for p in paras if p[0] == lo))
        while k > 0 and kinds[k - 1] == "neutral" and (not out or paras[k - 1][0] >= out[-1][1]):
            k -= 1
        out.append((paras[k][0], _with_commented_tail(lines, paras, kinds, hi)))
    return out


def _with_commented_tail(lines: list[str], paras: list[tuple[int, int]], kinds: list[str], hi: int) -> int:
    """Where a run ends when the comment paragraphs right after it spell out a config ("# ddp:" over
    "#   use_megatron_fsdp: true", a variant left commented in the file): they are the file's too.
    A comment paragraph with no config in it (a Markdown heading) stays outside."""
    from skill_tools.evaluation.comments import commented_config_line

    end = hi
    for (lo, p_hi), kind in zip(paras, kinds):
        if lo < hi:
            continue
        if kind != "neutral":
            break
        if any(commented_config_line(ln) for ln in lines[lo:p_hi]):
            end = p_hi
    return end


def _joinable(lines: list[str], paras: list[tuple[int, int]], kinds: list[str], prev_end: int, lo: int) -> bool:
    """Two code paragraphs join when only blank lines and comment paragraphs lie between them."""
    between = [kinds[i] for i, (a, b) in enumerate(paras) if a >= prev_end and b <= lo]
    return all(k == "neutral" for k in between)


def python_literal_code(body: str) -> bool:
    """Python that assigns or writes a dict literal (``overrides = {...}``): parsed, never run."""
    if not re.search(r"=\s*[\[{(]|^\s*\{", body, re.M):
        return False
    code = [ln for ln in body.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    if code and all(_OVERRIDE_LINE.match(re.sub(r"\s+#.*$", "", ln)) for ln in code):  # (a trailing comment too)
        return False  # model.cuda_graph_modules=[] on every line: Hydra overrides, not Python
    try:
        tree = pysource.parse(body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(n, (ast.Assign, ast.Dict)) for n in ast.walk(tree))
