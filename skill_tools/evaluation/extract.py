"""Find the configuration an answer suggests, without ever running any of it.

An answer is untrusted text. This module only *locates* config fragments (fenced Python,
YAML/JSON, shell lines with Megatron-LM / ``run_script.py`` flags and Hydra overrides,
inline ``key=value`` prose) and hands each fragment's text to the canonical readers
(:func:`skill_tools.config.readers.read_text`), which parse Python with ``ast`` and YAML
with a safe loader. Before that, every fragment is screened: code-execution attempts,
YAML tags, alias bombs and oversized input become findings and the fragment is dropped.

Every fragment is a *candidate* with a polarity (:mod:`polarity`): recommended, rejected
("before:", "don't use", "X is rejected on 0.16", the ``-`` lines of a diff), an alternative
("optionally widen to ...") and, where its clause or introducing sentence names one, the MCore
era it is written for. The config that is scored is the recommended candidates for the task's
era (:meth:`Extraction.select`); alternatives and the other era's spelling are kept apart.
"""

from __future__ import annotations

import ast
import re
import shlex
import textwrap
from dataclasses import dataclass, field
from typing import Any, Iterator

from skill_tools.config import limits
from skill_tools.config.model import SECTIONS, CanonicalConfig, Location
from skill_tools.evaluation.polarity import (
    ALTERNATIVE,
    LinePolarity,
    heading_era,
    intro_polarity,
)

MAX_ANSWER_CHARS = 100_000
MAX_BLOCK_CHARS = 20_000
MAX_BLOCKS = 100
# One set of input bounds for configs and answer fragments (skill_tools.config.limits).
MAX_YAML_ALIASES = limits.MAX_YAML_ALIASES
MAX_NESTING = limits.MAX_NESTING

SUGGESTED, COUNTEREXAMPLE, REJECTED = "suggested", "counterexample", "rejected"  # rejected: screened out

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+.-]*)[^\n]*$")
_LANG = {
    "python": "python", "py": "python", "python3": "python", "ipython": "python",
    "yaml": "yaml", "yml": "yaml", "json": "json", "jsonc": "json",
    "bash": "shell", "sh": "shell", "shell": "shell", "console": "shell", "zsh": "shell",
    "text": "auto", "txt": "auto", "": "auto", "ini": "shell", "diff": "diff", "patch": "diff",
}
_DANGER_TEXT = re.compile(
    r"__import__|__builtins__|__subclasses__|\beval\s*\(|\bexec\s*\(|os\.system|os\.popen|"
    r"subprocess\.|pickle\.loads?|marshal\.loads|importlib\.|ctypes\.", re.I)
_YAML_TAG = re.compile(r"(?:^|[\s\[\{,:-])(!{1,2}[A-Za-z<][^\s]*)", re.M)
_HYDRA_TOKEN = re.compile(r"^[+~]{0,2}[A-Za-z_]\w*(?:\.\w+)+=")
_FLAT_TOKEN = re.compile(r"^[A-Za-z_]\w*_\w*=")
_ENV_TOKEN = re.compile(r"^(?:export\s+)?([A-Z][A-Z0-9_]{2,})=(.*)$")
_INLINE_CODE = re.compile(r"`([^`\n]{1,400})`")
_PROSE_KV = re.compile(
    r"(?<![\w.`'\"-])((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)"
    r"\s*=\s*(\"[^\"\n]*\"|'[^'\n]*'|\[[^\]\n]*\]|[\w.:+,-]*[\w\]])")
#: "set `model.cuda_graph_impl` to `full_iteration`", "cuda_graph_warmup_steps to 3": a key, then to/as, then a value.
_PROSE_TO = re.compile(
    r"`?((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)`?"
    r"\s+(?:to|as|at)\s+`?(\"[^\"\n]*\"|'[^'\n]*'|\[[^\]\n]*\]|[\w.:+,-]*[\w\]])`?")
_NOT_VALUES = frozenset({"the", "a", "an", "be", "use", "make", "get", "avoid", "keep", "match", "reduce", "enable",
                         "disable", "capture", "run", "false.", "true.", "it", "this", "that", "each", "every"})
_PY_ASSIGN = re.compile(r"^\s*[A-Za-z_][\w.\[\]'\"]*\s*=\s*\S")
_PY_HINT = re.compile(r"^\s*(?:cfg|config|recipe|conf|c)\.\w+(?:\.\w+)*\s*=|^\s*(?:from|import)\s+\w", re.M)
_YAML_HINT = re.compile(r"^\s*[A-Za-z_][\w.]*\s*:\s*(?:\S|$)", re.M)

_DANGER_MODULES = frozenset({"subprocess", "shutil", "socket", "pickle", "marshal", "importlib", "ctypes",
                             "builtins", "pty", "requests", "urllib", "http", "runpy", "code", "codeop"})
_DANGER_CALLS = frozenset({"eval", "exec", "compile", "open", "__import__", "getattr", "setattr", "delattr",
                           "globals", "locals", "vars", "input", "breakpoint", "exit", "quit"})
_OS_SAFE_ATTRS = frozenset({"environ", "path", "getenv", "sep"})


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

    def to_dict(self) -> dict[str, Any]:
        text = self.text if len(self.text) <= 400 else self.text[:400] + "…"
        return {"kind": self.kind, "origin": self.origin, "role": self.role, "era": self.era, "why": self.why,
                "line": self.line, "keys": self.keys, "error": self.error, "text": text}


@dataclass
class Extraction:
    """What an answer suggests: the merged config, the fragments and the problems found."""

    config: CanonicalConfig
    blocks: list[Block]
    findings: list[Finding]
    counter_config: CanonicalConfig
    era: str | None = None  # the era the config was selected for
    alternatives: list[CanonicalConfig] = field(default_factory=list)
    other_era: CanonicalConfig | None = None

    def select(self, era: str | None) -> "Extraction":
        """The recommended candidates for ``era`` (legacy | current | None: untagged only) merged in order."""
        source = self.config.source
        config = CanonicalConfig(source=source, fmt="answer")
        counter = CanonicalConfig(source=source, fmt="answer-counterexamples")
        other = CanonicalConfig(source=source, fmt="answer-other-era")
        alts: list[CanonicalConfig] = []
        for b in self.blocks:
            if b.cfg is None or b.error is not None or b.role == REJECTED:
                continue
            if b.role == COUNTEREXAMPLE:
                _merge(counter, b.cfg)
            elif b.era is not None and era is not None and b.era != era:
                _merge(other, b.cfg)
            elif b.era is not None and era is None:
                continue
            elif b.role == ALTERNATIVE:
                alts.append(b.cfg)
            else:
                _merge(config, b.cfg)
        self.config, self.counter_config, self.other_era, self.alternatives, self.era = config, counter, other, alts, era
        return self

    @property
    def eras_written(self) -> set[str]:
        return {b.era for b in self.blocks if b.era and b.cfg is not None and b.role != COUNTEREXAMPLE}

    @property
    def unsafe(self) -> bool:
        return any(f.kind in ("security", "limit") for f in self.findings)

    @property
    def suggested(self) -> list[Block]:
        return [b for b in self.blocks if b.role == SUGGESTED and b.error is None]

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config.to_dict(), "era": self.era, "blocks": [b.to_dict() for b in self.blocks],
                "alternatives": [a.to_dict() for a in self.alternatives],
                "findings": [f.to_dict() for f in self.findings], "unsafe": self.unsafe}


def _merge(into: CanonicalConfig, cfg: CanonicalConfig) -> None:
    for key, value in cfg.values.items():
        into.set(key, value, cfg.locations.get(key))
    into.env.update(cfg.env)
    into.unparsed.extend(cfg.unparsed)


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def extract_config(text: str, source: str = "<answer>", era: str | None = "auto") -> Extraction:
    """Locate, screen and read every config fragment of ``text``. Never executes anything."""
    findings: list[Finding] = []
    if not isinstance(text, str):
        text = ""
        findings.append(Finding("parse", "answer is not text"))
    if len(text) > MAX_ANSWER_CHARS:
        findings.append(Finding("limit", f"answer is {len(text)} characters; only the first "
                                         f"{MAX_ANSWER_CHARS} are read", evidence=f"{len(text)} chars"))
        text = text[:MAX_ANSWER_CHARS]
    blocks = list(_locate(text))
    if len(blocks) > MAX_BLOCKS:
        findings.append(Finding("limit", f"{len(blocks)} config fragments; only the first {MAX_BLOCKS} are read"))
        blocks = blocks[:MAX_BLOCKS]
    for block in blocks:
        problem = screen(block)
        if problem is not None:
            block.role = REJECTED
            block.error = problem.message
            findings.append(problem)
    read_text = _reader(findings)
    for block in blocks:
        if block.role == REJECTED or read_text is None:
            continue
        _read_block(block, read_text, source, findings)
    ex = Extraction(config=CanonicalConfig(source=source, fmt="answer"), blocks=blocks, findings=findings,
                    counter_config=CanonicalConfig(source=source, fmt="answer-counterexamples"))
    return ex.select(_auto_era(ex) if era == "auto" else era)


def _auto_era(ex: Extraction) -> str | None:
    """Without a stated era: the untagged recommendation decides (None; the scorer infers the era from
    its spelling), or, when every candidate is tagged, the one era written (current if both)."""
    untagged = any(b.era is None and b.cfg is not None and b.cfg.values and b.role != COUNTEREXAMPLE
                   for b in ex.blocks)
    written = ex.eras_written
    if untagged or not written:
        return None
    return next(iter(written)) if len(written) == 1 else "current"


def _reader(findings: list[Finding]):
    try:
        from skill_tools.config.readers import read_text
    except ImportError as exc:  # readers are part of the package; say so rather than crash
        findings.append(Finding("parse", f"config readers unavailable: {exc}"))
        return None
    return read_text


def _read_block(block: Block, read_text, source: str, findings: list[Finding]) -> None:
    """Read one candidate into its own config (``block.cfg``); :meth:`Extraction.select` merges them."""
    into = CanonicalConfig(source=source, fmt="answer")
    if block.kind == "env":
        for name, value in _env_pairs(block.text):
            into.env[name] = value
        block.keys = sorted("env." + n for n, _ in _env_pairs(block.text))
        block.cfg = into
        return
    where = f"{source}:{block.line}"
    try:
        cfg = read_text(block.text, fmt=block.kind, source=where)
    except Exception as exc:  # InputError or a reader defect: the fragment is unreadable, scoring goes on
        block.error = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
        findings.append(Finding("parse", f"{block.kind} fragment not understood: {block.error}", block.line,
                                _snippet(block.text)))
        return
    block.keys = sorted(cfg.values) + sorted("env." + k for k in cfg.env)
    for key, value in cfg.values.items():
        loc = cfg.locations.get(key)
        line = block.line + (loc.line - 1 if loc is not None and loc.line else 0)
        into.set(key, value, Location(source, line))
    into.env.update(cfg.env)
    if cfg.unparsed:
        into.unparsed.extend(cfg.unparsed)
    block.cfg = into


# --------------------------------------------------------------------------------------------
# locating fragments
# --------------------------------------------------------------------------------------------


def _locate(text: str) -> Iterator[Block]:
    lines = text.split("\n")
    i = 0
    prose_start = 0
    section: list[str | None] = [None]  # the era named by the latest heading
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        yield from _prose_blocks(lines, prose_start, i, section)
        fence, lang = m.group(1), m.group(2).lower()
        j = i + 1
        while j < len(lines) and not lines[j].lstrip().startswith(fence[0] * len(fence)):
            j += 1
        body = "\n".join(lines[i + 1:j])
        pol = _intro(lines, i, body, section[0])
        for block in _fenced_blocks(body, _LANG.get(lang, "auto"), i + 2, pol.role):
            block.era = block.era or pol.era
            block.why = block.why or pol.why
            yield block
        i = j + 1
        prose_start = i
    yield from _prose_blocks(lines, prose_start, len(lines), section)


def _intro(lines: list[str], fence_index: int, body: str, section_era: str | None):
    """The block's polarity from the sentence just above it (or its own first comment)."""
    context = [ln for ln in lines[max(0, fence_index - 2):fence_index] if ln.strip()]
    lead = context[-1].strip() if context else ""
    if lead and not (lead.endswith(":") or len(lead) <= 60):
        lead = ""  # only an introducing line ("Before:", "On 0.16 use:") sets the role
    first = body.lstrip().split("\n", 1)[0] if body.strip() else ""
    comment = first if first.lstrip().startswith(("#", "//")) else ""
    return intro_polarity(_last_sentence(lead), comment, section_era)


def _last_sentence(text: str) -> str:
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return parts[-1] if parts else ""


def _fenced_blocks(body: str, kind: str, line: int, role: str) -> Iterator[Block]:
    if not body.strip():
        return
    if kind == "diff":
        plus = textwrap.dedent("\n".join(ln[1:] for ln in body.split("\n") if ln.startswith("+") and not ln.startswith("+++")))
        minus = textwrap.dedent("\n".join(ln[1:] for ln in body.split("\n") if ln.startswith("-") and not ln.startswith("---")))
        if minus.strip():
            for block in _fenced_blocks(minus, "auto", line, COUNTEREXAMPLE):
                block.why = "a removed line of a diff"
                yield block
        if plus.strip():
            yield from _fenced_blocks(plus, "auto", line, role)
        return
    if kind == "auto":
        kind = _guess_kind(body)
    if kind in ("python", "yaml", "json"):
        yield Block(kind, body, line, "fenced", role)
    elif _DANGER_TEXT.search(body):
        yield Block("shell", body, line, "fenced", role)  # screened and rejected, never split
    else:
        yield from _shell_blocks(body, line, role, "fenced")


def _guess_kind(body: str) -> str:
    stripped = body.lstrip()
    if stripped.startswith(("{", "[")):
        return "json"
    if _PY_HINT.search(body):
        return "python"
    if re.search(r"(^|\s)--[A-Za-z]", body) or re.search(r"^\s*(export\s+)?[A-Z][A-Z0-9_]+=", body, re.M):
        return "shell"
    if all(_HYDRA_TOKEN.match(t) or _FLAT_TOKEN.match(t) for t in body.split()):
        return "shell"
    if _YAML_HINT.search(body):
        return "yaml"
    return "shell"


def _logical_lines(body: str, line: int) -> Iterator[tuple[str, int]]:
    buf: list[str] = []
    start = line
    for offset, raw in enumerate(body.split("\n")):
        if not buf:
            start = line + offset
        stripped = raw.strip()
        if stripped.startswith("$ "):
            stripped = stripped[2:]
        if stripped.endswith("\\"):
            buf.append(stripped[:-1])
            continue
        buf.append(stripped)
        joined = " ".join(p for p in buf if p)
        buf = []
        if joined and not joined.startswith("#"):
            yield joined, start
    if buf:
        yield " ".join(p for p in buf if p), start


def _shell_blocks(body: str, line: int, role: str, origin: str) -> Iterator[Block]:
    """Split shell text into env assignments, Hydra overrides and flag lists."""
    for logical, ln in _logical_lines(body, line):
        try:
            tokens = shlex.split(logical, comments=True)
        except ValueError:
            tokens = logical.split()
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
                hydra.append(tok)
            elif tok.startswith("--") and len(tok) > 2:
                in_flags = True
                flags.append(tok)
                if "_" in tok.split("=", 1)[0]:
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
        if env:
            yield Block("env", "\n".join(env), ln, origin, role)
        if flags and any(f.startswith("--") for f in flags):
            yield Block("run_script" if run_script else "megatron_lm", shlex.join(flags), ln, origin, role)
        if hydra:
            yield Block("hydra", "\n".join(hydra), ln, origin, role)


def _prose_blocks(lines: list[str], start: int, end: int, section: list[str | None]) -> Iterator[Block]:
    """Inline code spans and bare ``key=value`` pairs in the prose between fences, each judged
    by its own clause (:class:`polarity.LinePolarity`)."""
    for idx in range(start, end):
        text = lines[idx]
        if not text.strip():
            continue
        is_heading, era = heading_era(text)
        if is_heading:
            section[0] = era
        ln = idx + 1
        pol = LinePolarity(text, section[0])
        for m in _INLINE_CODE.finditer(text):
            p = pol.at(m.start(), m.end())
            for block in _inline_code(m.group(1), ln, p.role):
                block.era, block.why = p.era, p.why
                yield block
        for m in _PROSE_TO.finditer(text):
            key, value = m.group(1), m.group(2)
            if value.lower() in _NOT_VALUES or (not key.isupper() and "_" not in key and "." not in key):
                continue
            p = pol.at(m.start(), m.end())
            kind, body = ("env", f"{key}={value.strip(chr(34) + chr(39))}") if key.isupper() else \
                ("hydra", f"{_strip_root(key)}={value}")
            block = Block(kind, body, ln, "prose", p.role)
            block.era, block.why = p.era, p.why
            yield block
        masked = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)
        for m in _PROSE_KV.finditer(masked):
            key, value = m.group(1), m.group(2)
            if "://" in value:
                continue
            p = pol.at(m.start(), m.end())
            if key.isupper():
                block = Block("env", f"{key}={value.strip(chr(34) + chr(39))}", ln, "prose", p.role)
            else:
                block = Block("hydra", f"{_strip_root(key)}={value}", ln, "prose", p.role)
            block.era, block.why = p.era, p.why
            yield block


def _inline_code(code: str, ln: int, role: str) -> Iterator[Block]:
    code = code.strip()
    if _DANGER_TEXT.search(code):
        yield Block("shell", code, ln, "inline", role)  # screened and rejected
        return
    if code.startswith("--"):
        yield from _shell_blocks(code, ln, role, "inline")
    elif re.match(r"^(?:export\s+)?[A-Z][A-Z0-9_]{2,}=\S", code):
        yield from _shell_blocks(code, ln, role, "inline")
    elif re.match(r"^[\w.\[\]'\"]+\s+=\s+\S", code) and _PY_ASSIGN.match(code):
        yield Block("python", code, ln, "inline", role)
    elif re.match(r"^[A-Za-z_][\w.]*\s*=\s*\S", code) and ("." in code.split("=", 1)[0] or "_" in code.split("=", 1)[0]):
        key, value = code.split("=", 1)
        yield Block("hydra", f"{_strip_root(key.strip())}={value.strip()}", ln, "inline", role)


def _strip_root(key: str) -> str:
    """``cfg.model.x`` in prose means ``model.x``: drop a Python object root before a section."""
    parts = key.split(".")
    if len(parts) >= 3 and parts[0] not in SECTIONS and parts[1] in SECTIONS:
        return ".".join(parts[1:])
    return key


def _env_pairs(text: str) -> Iterator[tuple[str, str]]:
    for tok in text.split("\n"):
        m = _ENV_TOKEN.match(tok.strip())
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
        return _screen_python(block)
    return None


def _screen_python(block: Block) -> Finding | None:
    try:
        tree = ast.parse(block.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # the reader reports the syntax problem as a parse finding
    for node in ast.walk(tree):
        bad: str | None = None
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            hit = [n for n in names if n.split(".")[0] in _DANGER_MODULES]
            bad = f"import of {hit[0]}" if hit else None
        elif isinstance(node, ast.Name) and (node.id in _DANGER_CALLS or _dunder(node.id)):
            bad = f"use of {node.id}"
        elif isinstance(node, ast.Attribute):
            base = node.value.id if isinstance(node.value, ast.Name) else None
            if _dunder(node.attr):
                bad = f"attribute {node.attr}"
            elif base in _DANGER_MODULES or (base == "os" and node.attr not in _OS_SAFE_ATTRS):
                bad = f"call into {base}.{node.attr}"
        if bad:
            line = block.line + getattr(node, "lineno", 1) - 1
            return Finding("security", f"python fragment contains {bad}; nothing from an answer is executed "
                                       "and the block is not read", line, _snippet(block.text))
    return None


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def _snippet(text: str, pos: int = 0, width: int = 120) -> str:
    start = max(0, pos - 20)
    return " ".join(text[start:start + width].split())
