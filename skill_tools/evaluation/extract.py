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

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Iterator

from skill_tools.config.model import SECTIONS, CanonicalConfig, Location
from skill_tools.evaluation.fragments import (  # noqa: F401  (re-exported: the scorer's vocabulary)
    COUNTEREXAMPLE,
    MAX_ANSWER_CHARS,
    MAX_BLOCK_CHARS,
    MAX_BLOCKS,
    MAX_NESTING,
    MAX_YAML_ALIASES,
    REJECTED,
    SUGGESTED,
    WORDS,
    _DANGER_TEXT,
    _HYDRA_TOKEN,
    Block,
    Finding,
    _env_pairs,
    _guess_kind,
    _shell_blocks,
    _snippet,
    screen,
)
from skill_tools.evaluation.prose import is_table_start, stated_in_words, table_cells
from skill_tools.evaluation.polarity import (
    ALTERNATIVE,
    LinePolarity,
    heading_era,
    intro_polarity,
)


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+.-]*)[^\n]*$")
_LANG = {
    "python": "python", "py": "python", "python3": "python", "ipython": "python",
    "yaml": "yaml", "yml": "yaml", "json": "json", "jsonc": "json",
    "bash": "shell", "sh": "shell", "shell": "shell", "console": "shell", "zsh": "shell",
    "text": "auto", "txt": "auto", "": "auto", "ini": "shell", "diff": "diff", "patch": "diff",
}
_INLINE_CODE = re.compile(r"`([^`\n]{1,400})`")
_PROSE_KV = re.compile(
    r"(?<![\w.`'\"-])((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)"
    r"\s*=\s*(\"[^\"\n]*\"|'[^'\n]*'|\[[^\]\n]*\]|[\w.:+,-]*[\w\]])")
#: "set `model.cuda_graph_impl` to `full_iteration`", "cuda_graph_warmup_steps to 3": a key, then to/as, then a value.
_PROSE_TO = re.compile(
    r"`?((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)`?"
    r"\s+(?:(?:(?:is\s+|are\s+)?set\s+)?(?:to|as)\s+`?(\"[^\"\n]*\"|'[^'\n]*'|\[[^\]\n]*\]|[\w.:+,-]*[\w\]])|at\s+`?(\d+(?:\.\d+)?))`?")
#: `cuda_graph_impl "transformer_engine"`: a key, then a double-quoted value.
_PROSE_QUOTED = re.compile(
    r"(?<![\w.])`?((?:[A-Za-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+)`?\s+\"([\w.:+-]{1,60})\"")
_NOT_VALUES = frozenset({"the", "a", "an", "be", "use", "make", "get", "avoid", "keep", "match", "reduce", "enable",
                         "disable", "capture", "run", "false.", "true.", "it", "this", "that", "each", "every",
                         "its", "their", "your", "our", "his", "her", "my", "some", "any", "all", "both", "one",
                         "default", "defaults", "zero", "them", "those", "these", "what", "which", "how"})
_PY_ASSIGN = re.compile(r"^\s*[A-Za-z_][\w.\[\]'\"]*\s*=\s*\S")


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
        written = [b for b in self.blocks if b.origin != WORDS]
        words = [b for b in self.blocks if b.origin == WORDS]
        for b in written + words:
            if b.cfg is None or b.error is not None or b.role == REJECTED:
                continue
            if b.origin == WORDS:
                if b.role == SUGGESTED and (b.era is None or era is None or b.era == era):
                    _merge_words(config, b.cfg, era)
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


def _merge_words(into: CanonicalConfig, cfg: CanonicalConfig, era: str | None) -> None:
    """A setting read from words fills a key the answer did not write out, in the era's spelling."""
    graph_keys = ("model.cuda_graph_impl", "model.cuda_graph_modules", "model.cuda_graph_scope",
                  "model.enable_cuda_graph", "model.external_cuda_graph")
    for key, value in cfg.values.items():
        if key == "model.cuda_graph_modules" and era == "legacy":
            key = "model.cuda_graph_scope"
        if into.has(key) or (key in graph_keys and key != "model.cuda_graph_impl" and
                             (into.has("model.cuda_graph_modules") or into.has("model.cuda_graph_scope"))):
            continue
        if key == "model.cuda_graph_impl" and any(into.has(k) for k in graph_keys):
            continue
        into.set(key, value, cfg.locations.get(key))


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
    for block in blocks:
        _settle(block)
    ex = Extraction(config=CanonicalConfig(source=source, fmt="answer"), blocks=blocks, findings=findings,
                    counter_config=CanonicalConfig(source=source, fmt="answer-counterexamples"))
    return ex.select(_auto_era(ex) if era == "auto" else era)


def _settle(block: Block) -> None:
    """After reading: the old side of a diff keeps only what the new side changed or removed; an
    era tag that the block's own keys contradict (0.18+ keys in a block said to be for 0.16) is
    dropped, so the block is judged for the task's era like any other."""
    if block.cfg is None:
        return
    if block.diff_new:
        new: dict[str, Any] = {}
        for b in block.diff_new:
            if b.cfg is not None:
                new.update(b.cfg.values)
        for key in [k for k, v in block.cfg.values.items() if k in new and new[k] == v]:
            block.cfg.unset(key)
        block.keys = sorted(block.cfg.values) + sorted("env." + k for k in block.cfg.env)
    if block.era == "legacy" and _current_only_keys(block.cfg):
        block.why = (block.why + "; " if block.why else "") + \
            f"written for 0.16-0.17 but sets {', '.join(_current_only_keys(block.cfg))} (0.18+ only)"
        block.era = None


def _current_only_keys(cfg: CanonicalConfig) -> list[str]:
    from skill_tools.config.era import DEFAULT_LEGACY, era_for, migrations

    return [m.key for m in migrations(cfg, era_for(DEFAULT_LEGACY)) if "does not exist" in m.message]


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
        new_side, old_side, removed = _diff_sides(body)
        new_blocks = list(_fenced_blocks(new_side, "auto", line, role)) if new_side.strip() else []
        yield from new_blocks
        if removed:
            for block in _fenced_blocks(old_side, "auto", line, COUNTEREXAMPLE):
                block.why = "a removed line of a diff"
                block.diff_new = new_blocks
                yield block
        return
    if kind == "auto":
        kind = _guess_kind(body)
    if kind in ("python", "yaml", "json"):
        yield Block(kind, body, line, "fenced", role)
    elif _DANGER_TEXT.search(body):
        yield Block("shell", body, line, "fenced", role)  # screened and rejected, never split
    else:
        yield from _shell_blocks(body, line, role, "fenced")


def _diff_sides(body: str) -> tuple[str, str, bool]:
    """(the new file, the old file, whether any line was removed): context lines belong to both
    sides, so a ``+`` line keeps its YAML parent and an unchanged key is not read as rejected."""
    new: list[str] = []
    old: list[str] = []
    removed = False
    for ln in body.split("\n"):
        if ln.startswith(("+++", "---", "@@", "diff ", "index ")):
            continue
        if ln.startswith("+"):
            new.append(ln[1:])
        elif ln.startswith("-"):
            old.append(ln[1:])
            removed = True
        else:
            ctx = ln[1:] if ln.startswith(" ") else ln
            new.append(ctx)
            old.append(ctx)
    return textwrap.dedent("\n".join(new)), textwrap.dedent("\n".join(old)), removed


def _prose_blocks(lines: list[str], start: int, end: int, section: list[str | None]) -> Iterator[Block]:
    """Inline code spans, bare ``key=value`` pairs, Markdown tables and settings stated in words in
    the prose between fences, each judged by its own clause (:class:`polarity.LinePolarity`) or,
    in a table, by its column's header."""
    idx = start
    while idx < end:
        text = lines[idx]
        if not text.strip():
            idx += 1
            continue
        if is_table_start(lines, idx):
            found, idx = table_cells(lines[:end], idx, section[0])
            for cell in found:
                yield from _table_blocks(cell)
            continue
        is_heading, era = heading_era(text)
        if is_heading:
            section[0] = era
        yield from _line_blocks(text, idx + 1, section[0])
        idx += 1


def _table_blocks(cell) -> Iterator[Block]:
    p = cell.polarity
    if cell.pair:
        key, value = cell.text.split("=", 1)
        block = Block("env", cell.text, cell.line, "table", p.role) if key.isupper() else \
            Block("hydra", _kv(key, value), cell.line, "table", p.role)
        block.era, block.why = p.era, p.why or "a key | value table row"
        yield block
        return
    for block in _line_blocks(cell.text, cell.line, p.era, words=False):
        if p.role != SUGGESTED and block.role == SUGGESTED:
            block.role = p.role
        block.era = block.era or p.era
        block.why = block.why or p.why
        block.origin = "table"
        yield block


def _line_blocks(text: str, ln: int, section_era: str | None, words: bool = True) -> Iterator[Block]:
    pol = LinePolarity(text, section_era)
    for m in _INLINE_CODE.finditer(text):
        p = pol.at(m.start(), m.end())
        for block in _inline_code(m.group(1), ln, p.role):
            block.era, block.why = p.era, p.why
            yield block
    for m in _PROSE_TO.finditer(text):
        key, value = m.group(1), m.group(2) or m.group(3)
        if value.lower() in _NOT_VALUES or (not key.isupper() and "_" not in key and "." not in key):
            continue
        p = pol.at(m.start(), m.end())
        kind, body = ("env", f"{key}={value.strip(chr(34) + chr(39))}") if key.isupper() else \
            ("hydra", _kv(key, value))
        block = Block(kind, body, ln, "prose", p.role)
        block.era, block.why = p.era, p.why
        yield block
    for m in _PROSE_QUOTED.finditer(text):
        p = pol.at(m.start(), m.end())
        block = Block("hydra", _kv(m.group(1), m.group(2)), ln, "prose", p.role)
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
            block = Block("hydra", _kv(key, value), ln, "prose", p.role)
        block.era, block.why = p.era, p.why
        yield block
    if not words:
        return
    plain = text.replace("`", " ")
    for stated in stated_in_words(plain):
        p = pol.at(stated.pos, stated.pos + stated.length)
        value = stated.value
        shown = "[" + ",".join(value) + "]" if isinstance(value, list) else \
            (str(value).lower() if isinstance(value, bool) else value)
        block = Block("hydra", f"{stated.key}={shown}", ln, WORDS, p.role)
        block.era, block.why = p.era, p.why or "stated in words"
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
    elif re.match(r"^[\w.\[\]'\"]+\s+=\s+\S", code) and _PY_ASSIGN.match(code) and \
            "." in code.split("=", 1)[0]:
        yield Block("python", code, ln, "inline", role)
    elif re.match(r"^[A-Za-z_][\w.]*\s*=\s*\S", code) and ("." in code.split("=", 1)[0] or "_" in code.split("=", 1)[0]):
        key, value = code.split("=", 1)
        yield Block("hydra", _kv(key.strip(), value.strip()), ln, "inline", role)


def _kv(key: str, value: str) -> str:
    """One Hydra override from prose: ``["attn", "mlp"]`` loses its spaces (one token, as written)."""
    if value.startswith("[") and value.endswith("]"):
        value = re.sub(r"\s+", "", value)
    return f"{_strip_root(key)}={value}"


def _strip_root(key: str) -> str:
    """``cfg.model.x`` in prose means ``model.x``: drop a Python object root before a section."""
    parts = key.split(".")
    if len(parts) >= 3 and parts[0] not in SECTIONS and parts[1] in SECTIONS:
        return ".".join(parts[1:])
    return key

