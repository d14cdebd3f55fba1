"""Config fragments of an answer: what a fragment is (:class:`Block`), the problems found with it
(:class:`Finding`), the screen every fragment passes before a reader sees it (code-execution
attempts, YAML tags, alias bombs, size and nesting limits), and the splitting of shell text into
environment variables, Hydra overrides and flag lists. Nothing here runs anything.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Iterator

from skill_tools.config import limits
from skill_tools.config import pysource
from skill_tools.config.model import CanonicalConfig
from skill_tools.config.shell_words import variable_ref, variables
from skill_tools.evaluation.launchers import launcher_calls
from skill_tools.evaluation.python_screen import python_hazard
from skill_tools.evaluation.shells import ENV_TOKEN, NOT_LAUNCHERS, posix_env, program, without_prose

MAX_ANSWER_CHARS = 100_000
MAX_BLOCK_CHARS = 20_000
MAX_BLOCKS = 100
# One set of input bounds for configs and answer fragments (skill_tools.config.limits).
MAX_YAML_ALIASES = limits.MAX_YAML_ALIASES
MAX_NESTING = limits.MAX_NESTING
SUGGESTED, COUNTEREXAMPLE, REJECTED = "suggested", "counterexample", "rejected"  # rejected: screened out
WORDS = "words"  # origin of a setting stated in plain words: lowest precedence

_DANGER_TEXT = re.compile(
    r"__import__|__builtins__|__subclasses__|(?<![\w.])eval\s*\(|(?<![\w.])exec\s*\(|os\.system|os\.popen|"
    r"subprocess\.|pickle\.loads?|marshal\.loads|importlib\.(?!metadata\b)|ctypes\.|\bbuiltins\.", re.I)

_YAML_TAG = re.compile(r"(?:^|[\s\[\{,:-])(!{1,2}[A-Za-z<][^\s]*)", re.M)


_HYDRA_TOKEN = re.compile(r"^[+~]{0,2}[A-Za-z_]\w*(?:\.\w+)+=")

_FLAT_TOKEN = re.compile(r"^[A-Za-z_]\w*_\w*=")

_ENV_TOKEN = ENV_TOKEN

_PY_HINT = re.compile(r"^\s*(?:cfg|config|recipe|conf|c)\.\w+(?:\.\w+)*\s*=|^\s*(?:from|import)\s+\w|"
                      r"^@[A-Za-z_][\w.]*(?:\(.*\))?\s*\n\s*(?:def|class)\s+\w|"  # a decorated definition
                      r"^\s*[A-Za-z_][\w.]*\s*=\s*[A-Za-z_][\w.]*\(|^\s*(?:def|class)\s+\w+.*:\s*$", re.M)  # x = f(…), def f(…):

#: (a key that is a capitalised word, "Notes:" or "ValueError: …", is a label or a message, not config)
_YAML_LINE = re.compile(r"^(?![A-Z][a-z]\w*:)\s*(?:-\s+)?[A-Za-z_][\w./-]*:(?:\s|$)|^\s*-\s+\S")
_YAML_HINT = re.compile(r"^(?![A-Z][a-z]\w*\s*:)\s*[A-Za-z_][\w.]*\s*:\s*(?:\S|$)", re.M)

@dataclass
class Finding:
    """A problem with the answer itself: ``security`` (an attempt to run code or abuse the
    parser), ``limit`` (too large/deep) or ``parse`` (a fragment the readers rejected)."""

    kind: str
    message: str
    line: int | None = None
    evidence: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "line": self.line, "evidence": self.evidence}

@dataclass
class Block:
    """One config fragment found in the answer."""

    kind: str  # yaml | json | python | hydra | run_script | megatron_lm | env
    text: str
    line: int  # 1-based line in the answer where the fragment starts
    origin: str = "fenced"  # fenced | inline | prose
    role: str = SUGGESTED  # suggested (recommended) | counterexample (rejected) | alternative | rejected (screened)
    era: str | None = None  # legacy | current when the answer writes it for one era
    why: str = ""
    keys: list[str] = field(default_factory=list)
    error: str | None = None
    cfg: CanonicalConfig | None = field(default=None, repr=False)
    #: for the old side of a diff: the new side's blocks (what both sides set alike is not rejected)
    diff_new: list["Block"] = field(default_factory=list, repr=False)
    #: the file the answer says the fragment edits ("**`recipes/a.py`**", ```` ```python:a.py ````, a diff header)
    file: str | None = None
    #: which fenced block (or unfenced run) of the answer it came from; 0: prose
    group: int = 0
    #: the labelled option ("### Option 2") it sits in, as :class:`options.Section` counts them (None: none)
    option: int | None = None

    def to_dict(self) -> dict[str, Any]:
        text = self.text if len(self.text) <= 400 else self.text[:400] + "…"
        return {"kind": self.kind, "origin": self.origin, "role": self.role, "era": self.era, "why": self.why,
                "line": self.line, "keys": self.keys, "error": self.error, "text": text}

#: Megatron-LM's functional-test YAML (``MODEL_ARGS:`` of ``--flag: value``): flags, read as such.
_FLAG_KEYS = re.compile(r"^\s*--[\w-]+\s*:", re.M)


def _yaml_mapping(body: str) -> bool:
    """Whether ``body`` is a YAML document whose top is a mapping with a nested mapping in it."""
    from skill_tools.config import limits

    try:
        data = limits.load_yaml(body, "<fragment>")[0]
    except Exception:  # not YAML: the other guesses decide
        return False
    return isinstance(data, dict) and any(isinstance(v, dict) for v in data.values())


def json_document(body: str) -> bool:
    """A JSON object as a whole (an args file: ``{"bf16": true, …}``), which Python's parser would
    also take, reading ``true`` as a name."""
    if not body.lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(body), dict)
    except (ValueError, RecursionError):
        return False


def _guess_kind(body: str) -> str:
    stripped = body.lstrip()
    if stripped.startswith(("{", "[")):
        return "json"
    if _PY_HINT.search(body):
        return "python"
    lines = [ln for ln in body.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    if len(lines) > 1 and all(_YAML_LINE.match(ln) for ln in lines):
        return "yaml"  # a manifest whose command line holds --flags is still YAML
    if len(lines) > 2 and _YAML_LINE.match(lines[0]) and not _FLAG_KEYS.search(body) and _yaml_mapping(body):
        return "yaml"  # a compose file whose `command: >` block scalar holds the flags
    if re.search(r"(^|\s)--[A-Za-z]", body) or re.search(r"^\s*(export\s+)?[A-Z][A-Z0-9_]+=", body, re.M):
        return "shell"
    if all(_HYDRA_TOKEN.match(t) or _FLAT_TOKEN.match(t) for t in body.split()):
        return "shell"
    if _YAML_HINT.search(body):
        return "yaml"
    return "shell"

_INLINE_COMMENT, _CROSSED, _ELLIPSIS = re.compile(r"`#[^`\n]*`"), re.compile(r"[✗✘❌🚫⛔✖]"), re.compile(r"(?<!\S)(?:\.{3,}|…)(?!\S)")


def _logical_lines(body: str, line: int) -> Iterator[tuple[str, int]]:
    buf: list[str] = []
    start = line
    for offset, raw in enumerate(body.split("\n")):
        if not buf:
            start = line + offset
        stripped = _INLINE_COMMENT.sub(" ", raw).strip()  # `# note` inside a command line is a comment
        if stripped.startswith("$ "):
            stripped = stripped[2:]
        stripped = without_prose(posix_env(stripped))  # "No --cuda-graph-modules: it must stay empty" runs nothing
        if stripped.endswith("\\"):
            buf.append(stripped[:-1])
            continue
        buf.append(stripped)
        joined, buf = _ELLIPSIS.sub(" ", " ".join(p for p in buf if p)), []  # "--flag x ..." leaves the rest out
        if joined and not joined.startswith("#") and not _CROSSED.search(joined):  # "│ ✗ x=1 → 0.18+ only" rejects x
            yield joined, start
    if buf:
        yield " ".join(p for p in buf if p), start

#: A line that starts by removing what it names ("Unset any NCCL_IB_DISABLE=1 left over from debugging").
_REMOVE_WORDS = {"unset", "remove", "drop", "delete", "clear"}


def _removed(tokens: list[str]) -> list[str] | None:
    """The variables a line removes — ``unset PYTORCH_CUDA_ALLOC_CONF`` (shell), "Unset any
    NCCL_NET=Socket left over" (prose in a block) — or None when it removes nothing."""
    if tokens[:1] == ["unset"] and len(tokens) > 1:
        return [t for t in tokens[1:] if t.isidentifier()]
    if tokens and tokens[0].lower() in _REMOVE_WORDS:
        return [t.rstrip(",;").split("=", 1)[0] for t in tokens[1:] if _ENV_TOKEN.match(t.rstrip(",;"))]
    return None


def _shell_blocks(body: str, line: int, role: str, origin: str) -> Iterator[Block]:
    """Split shell text into env assignments, Hydra overrides and flag lists; a flag's value that is
    a variable the text sets to one word (``--inference-cuda-graph-scope "${SCOPE}"`` after
    ``SCOPE=${SCOPE:-block}``) is that word."""
    words = _one_word_variables(body) if "$" in body else {}
    for logical, ln in _logical_lines(body, line):
        try:
            tokens = shlex.split(logical, comments=True)
        except ValueError:
            tokens = logical.split()
        if words:
            tokens = [words.get(variable_ref(t) or "", t) if t.startswith("$") else t for t in tokens]
        tokens, inner = _shell_command_string(tokens)
        if inner is not None:  # srun … bash -c "python run_recipe.py model.x=1": the quoted command
            yield from _shell_blocks(inner, ln, role, origin)
        if program(tokens) in NOT_LAUNCHERS:
            continue  # `skill-tools validate x --mcore-version 0.19.2`, `grep -n cuda_graph x`: not a training run
        gone = _removed(tokens)
        if gone is not None:  # the variables are gone (empty), whatever they were
            if gone or tokens[0] == "unset":
                yield Block("env", "\n".join(f"{name}=" for name in gone), ln, origin, role)
            continue
        hydra: list[str] = []
        flags: list[str] = []
        run_script = "run_script.py" in logical
        in_flags = False
        # Options before the script (torchrun --nproc-per-node ...) belong to the launcher.
        scripts = [i for i, t in enumerate(tokens) if t.endswith(".py") and not t.startswith("-")]
        k = scripts[-1] + 1 if scripts else 0
        env = [t for t in tokens[:k] if _ENV_TOKEN.match(t) and not t.startswith("-")]
        while k < len(tokens):
            tok = tokens[k]
            if tok == "export" and k + 1 < len(tokens):
                k += 1
                continue
            if not in_flags and _ENV_TOKEN.match(tok):
                env.append(tok)
            elif _HYDRA_TOKEN.match(tok) or (not tok.startswith("-") and _FLAT_TOKEN.match(tok)):
                hydra.append(tok[:-1] if tok.endswith(",") and not tok.endswith("=,") else tok)  # "k=v," in a list or repr
            elif tok.startswith("--") and len(tok) > 2:
                in_flags = True
                flags.append(tok)
                if "_" in tok.split("=", 1)[0] and not _launcher_flag(tok):
                    run_script = True
                while k + 1 < len(tokens) and not tokens[k + 1].startswith("-") and not _HYDRA_TOKEN.match(tokens[k + 1]):
                    k += 1
                    flags.append(tokens[k])
            elif tok.startswith("-") and in_flags and len(tok) > 1 and not tok[1].isdigit():
                flags.append(tok)  # short options such as run_script.py's -m/-mr
                while k + 1 < len(tokens) and not tokens[k + 1].startswith("-") and not _HYDRA_TOKEN.match(tokens[k + 1]):
                    k += 1
                    flags.append(tokens[k])
            k += 1
        env, nested = _shell_variables(env)
        for value in nested:  # OVERRIDES="model.x=1 --flag v": the variable holds the command's arguments
            yield from _shell_blocks(value, ln, role, origin)
        if env:
            yield Block("env", "\n".join(env), ln, origin, role)
        if flags and any(f.startswith("--") and not _launcher_flag(f) for f in flags) and \
                not _another_tool(tokens, scripts, flags):
            yield Block("run_script" if run_script else "megatron_lm", shlex.join(flags), ln, origin, role)
        if hydra:
            yield Block("hydra", "\n".join(hydra), ln, origin, role)

def _one_word_variables(body: str) -> dict[str, str]:
    """The variables ``body`` assigns that expand to one plain word (not a flag, not a path)."""
    try:
        found = variables(body)
    except Exception:  # text the shell scanner cannot follow resolves nothing
        return {}
    return {name: vals[0][0] for name, vals in found.items()
            if len(vals) == 1 and re.fullmatch(r"[\w.:+-]{1,64}", vals[0][0]) and not vals[0][0].startswith("-")}


def _another_tool(tokens: list[str], scripts: list[int], flags: list[str]) -> bool:
    """``python tools/step_time.py a.log b.log --skip-first 10``: a script none of whose options
    any Megatron-LM parser or run_script.py knows is another program (a log parser, a plotter),
    not a training run; its options are not Megatron settings."""
    from skill_tools.config.cli_tables import known_option

    longs = [f for f in flags if f.startswith("--") and not _launcher_flag(f)]
    return bool(scripts) and not any(known_option(f) for f in longs) and \
        not any("graph" in f or "_" in f.split("=", 1)[0] for f in longs)


_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
#: torchrun's own options (``DISTRIBUTED_ARGS=(--nproc_per_node 8 --nnodes 1 …)``): the launcher's, not a config.
LAUNCHER_FLAGS = frozenset(f for n in ("nproc_per_node", "nnodes", "node_rank", "master_addr", "master_port", "rdzv_backend",
                                       "rdzv_endpoint", "rdzv_id", "max_restarts", "standalone") for f in (n, n.replace("_", "-")))


def _launcher_flag(tok: str) -> bool:
    return tok.split("=", 1)[0].lstrip("-") in LAUNCHER_FLAGS


def _shell_command_string(tokens: list[str]) -> tuple[list[str], str | None]:
    """``… bash -c "CMD"``: the environment assignments before the shell, and CMD (read as shell
    text, never run)."""
    for i in range(1, len(tokens) - 1):
        opt = tokens[i]
        if tokens[i - 1].rsplit("/", 1)[-1] in _SHELLS and opt.startswith("-") and not opt.startswith("--") \
                and opt.endswith("c") and opt[1:].isalpha():
            launcher = [t for t in tokens[:i - 1] if _ENV_TOKEN.match(t) and not t.startswith("-")]  # srun's own options are not the job's
            return launcher, tokens[i + 1].replace("&&", "\n").replace(";", "\n")
    return tokens, None


def _shell_variables(tokens: list[str]) -> tuple[list[str], list[str]]:
    """Split ``NAME=value`` tokens into environment variables and shell variables that hold
    arguments (Hydra overrides or ``--flags``, later expanded as ``$NAME``); a bash array opener
    (``ARGS=(``) is neither."""
    env, nested = [], []
    for tok in tokens:
        value = tok.split("=", 1)[1] if "=" in tok else ""
        if value.startswith("("):
            continue
        parts = value.split()
        if parts and any(_HYDRA_TOKEN.match(p) or p.startswith("--") for p in parts):
            nested.append(value)
        else:
            env.append(tok)
    return env, nested

def _env_pairs(text: str) -> Iterator[tuple[str, str]]:
    for tok in text.split("\n"):
        m = _ENV_TOKEN.match(posix_env(tok.strip()))
        if m:
            yield m.group(1), m.group(2).strip().strip("'\"")


# --------------------------------------------------------------------------------------------

# screening: nothing that tries to run code or abuse a parser reaches a reader
# --------------------------------------------------------------------------------------------


def screen(block: Block) -> Finding | None:
    """A finding if the fragment must not be read; ``None`` if it is safe to hand to a reader."""
    text = block.text
    if len(text) > MAX_BLOCK_CHARS:
        return Finding("limit", f"{block.kind} fragment of {len(text)} characters exceeds {MAX_BLOCK_CHARS}",
                       block.line, _snippet(text))
    depth = limits.bracket_depth(text)
    if depth > MAX_NESTING:
        return Finding("limit", f"{block.kind} fragment nests {depth} levels deep (limit {MAX_NESTING})",
                       block.line, _snippet(text))
    m = _DANGER_TEXT.search(text)
    if m and block.kind == "python" and launches_only(text):
        m = None  # subprocess.run(["torchrun", …]) and nothing else: judged by the AST screen below
    if m:
        return Finding("security", f"{block.kind} fragment attempts code execution ({m.group(0)!r}); "
                                   "it is not read", block.line + text[:m.start()].count("\n"), _snippet(text, m.start()))
    if block.kind == "yaml":
        tag = _YAML_TAG.search(text)
        if tag:
            return Finding("security", f"YAML tag {tag.group(1)!r} is not allowed in an answer; the block is not read",
                           block.line + text[:tag.start()].count("\n"), _snippet(text, tag.start()))
        aliases = limits.yaml_alias_count(text)
        if aliases > MAX_YAML_ALIASES:
            return Finding("limit", f"YAML block uses {aliases} aliases (limit {MAX_YAML_ALIASES}); "
                                    "possible alias bomb, not read", block.line, _snippet(text))
    if block.kind == "python":
        hit = python_hazard(text)
        if hit is not None:
            bad, lineno = hit
            return Finding("security", f"python fragment contains {bad}; nothing from an answer is executed "
                                       "and the block is not read", block.line + lineno - 1, _snippet(text))
    return None


def launches_only(text: str) -> bool:
    """Every text match of the danger screen is ``subprocess.`` of a launcher call (see :mod:`launchers`)."""
    if any(m.group(0).lower() != "subprocess." for m in _DANGER_TEXT.finditer(text)):
        return False
    try:
        return "subprocess" in launcher_calls(pysource.parse(text))["modules"]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _snippet(text: str, pos: int = 0, width: int = 120) -> str:
    start = max(0, pos - 20)
    return " ".join(text[start:start + width].split())
