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
from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.model import CanonicalConfig, Location
from skill_tools.evaluation.doc_fences import untemplated_python
from skill_tools.evaluation.experiment_arms import mark_arms
from skill_tools.evaluation.fragments import (  # noqa: F401  (re-exported: the scorer's vocabulary)
    COUNTEREXAMPLE, MAX_ANSWER_CHARS, MAX_BLOCK_CHARS, MAX_BLOCKS, MAX_NESTING, MAX_YAML_ALIASES, REJECTED, SUGGESTED,
    WORDS, _DANGER_TEXT, _HYDRA_TOKEN, Block, Finding, _env_pairs, _guess_kind, _shell_blocks, _snippet, screen,
)
from skill_tools.evaluation.file_names import is_named_part
from skill_tools.evaluation.keys import call_env, launcher_document, normalise_keys
from skill_tools.evaluation.locate import _locate
from skill_tools.evaluation.notebook_cells import as_markdown
from skill_tools.evaluation.patches import internal_patches
from skill_tools.evaluation.prose_flags import prose_flags
from skill_tools.evaluation.variants import variant_blocks
from skill_tools.evaluation.bridge_helpers import helper_blocks
from skill_tools.evaluation.overrides_dict import assigned_overrides, bare_assignments, dotted_overrides
from skill_tools.evaluation.polarity import ALTERNATIVE, DESCRIBED, IF_CASE
from skill_tools.evaluation.precedence import ERA_NOTE, WRITTEN_ORIGINS, impl_of as _impl_of  # noqa: F401 (re-exported)
from skill_tools.evaluation.precedence import outranked as _outranked, restates_option, supersede as _supersede

@dataclass
class Extraction:
    """What an answer suggests: the merged config, the fragments and the problems found."""

    config: CanonicalConfig
    blocks: list[Block]
    findings: list[Finding]
    counter_config: CanonicalConfig
    era: str | None = None  # the era the config was selected for
    alternatives: list[CanonicalConfig] = field(default_factory=list)
    #: per alternative (by index), the keys of the case an if-clause offers it for
    cases: dict[int, set[str]] = field(default_factory=dict)
    other_era: CanonicalConfig | None = None

    def select(self, era: str | None) -> "Extraction":
        """The recommended candidates for ``era`` (legacy | current | None: untagged only) merged in order."""
        source = self.config.source
        config = CanonicalConfig(source=source, fmt="answer")
        counter = CanonicalConfig(source=source, fmt="answer-counterexamples")
        other = CanonicalConfig(source=source, fmt="answer-other-era")
        alts: list[CanonicalConfig] = []
        by_line: dict[int, int] = {}  # one option per line: "(0.18+: `x=1`), with the NaN checks off" is one option
        last_option: int | None = None  # the labelled option of the last option offered in prose

        last_group: int | None = None  # the fence of the last option offered in a block

        def offer(b: Block) -> None:
            nonlocal last_option, last_group
            prose = b.origin in _PROSE_ORIGINS + (WORDS,)
            if not prose and b.group and b.group == last_group:
                _merge(alts[-1], b.cfg)  # one fence's era sections ("# 0.18+", "# both eras") are one option
                return
            if not prose and b.option is not None and last_option == b.option and alts and _continues(alts[-1], b.cfg):
                _merge(alts[-1], b.cfg)  # "2) Keep `x=[…]` and stop graphing the router:" then its block: one option
                last_group, last_option = b.group, None
                return
            last_group = None if prose else b.group
            if prose and b.line not in by_line and b.option is not None and alts and last_option == b.option \
                    and _continues(alts[-1], b.cfg):
                by_line[b.line] = len(alts) - 1  # "### Option 2": its table row, then "For both: …"
            if prose and b.line in by_line:
                _merge(alts[by_line[b.line]], b.cfg)
                return
            last_option = b.option if prose else None
            alts.append(CanonicalConfig(source=source, fmt="answer-option"))
            _merge(alts[-1], b.cfg)
            if prose:
                by_line[b.line] = len(alts) - 1

        # Written settings merge in the order they are written ("Recipe 2 keeps ... and renames the
        # key to `cuda_graph_modules=[...]`" after a block goes on from it); an aside that offers
        # another setup is an option (:mod:`options`, :mod:`polarity`), not a later override.
        written = [b for b in self.blocks if b.origin != WORDS]
        words = [b for b in self.blocks if b.origin == WORDS]
        outranked = _outranked(written, era)
        impl_file: str | None = None  # the file whose block set the implementation
        impl_group = -1  # and that block's fence
        file_alt: dict[str, int] = {}  # another file's config, once offered: its later blocks join it
        for b in written + words:
            if b.cfg is None or b.error is not None or b.role in (REJECTED, DESCRIBED):
                continue
            if id(b) in outranked:
                b = outranked[id(b)]
                if b.cfg is None:
                    continue
            if b.origin == WORDS:
                if b.era is not None and era is not None and b.era != era:
                    continue
                if b.role == SUGGESTED:
                    _merge_words(config, b.cfg, era)
                elif b.role == ALTERNATIVE:
                    offer(b)
                continue
            if b.role == COUNTEREXAMPLE:
                _merge(counter, b.cfg)
            elif b.era is not None and era is not None and b.era != era:
                _merge(other, b.cfg)
            elif b.era is not None and era is None:
                continue
            elif b.role == ALTERNATIVE:
                offer(b)
            elif b.origin in WRITTEN_ORIGINS and b.file and b.file in file_alt and b.file != impl_file:
                _merge(alts[file_alt[b.file]], b.cfg)  # the rest of that other file's config
            elif b.origin in WRITTEN_ORIGINS and b.file and impl_file and b.file != impl_file and \
                    (_impl_of(b.cfg) not in (None, _impl_of(config)) or (is_named_part(b.file) and is_named_part(impl_file))):
                offer(b)  # another file with another implementation (or another named recipe): its own config
                file_alt[b.file] = len(alts) - 1
            elif b.origin not in WRITTEN_ORIGINS and restates_option(b.cfg, alts, config):
                continue  # that other config's setting mentioned again
            else:
                if b.origin in WRITTEN_ORIGINS and b.group != impl_group:
                    _supersede(config, b.cfg)  # a later block, not a later line of the same block
                if b.origin in WRITTEN_ORIGINS and _impl_of(b.cfg):
                    impl_file, impl_group = b.file or impl_file, b.group
                _merge(config, b.cfg)
        self.cases = _with_case(self.blocks, alts, by_line)
        _kept_defaults(self.blocks, config)
        self.config, self.counter_config, self.other_era, self.alternatives, self.era = config, counter, other, alts, era
        return self

    @property
    def eras_written(self) -> set[str]:
        return {b.era for b in self.blocks if b.era and b.cfg is not None and b.role not in (COUNTEREXAMPLE, DESCRIBED)}

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


_PROSE_ORIGINS = ("inline", "prose", "table", "comment")


def _kept_defaults(blocks: list[Block], config: CanonicalConfig) -> None:
    """"Do NOT pass --no-gradient-accumulation-fusion": a rejected ``--no-X`` flag keeps X on
    (Megatron-LM's default), so the answer's launch has X=True, not an unknown."""
    for b in blocks:
        if b.role != COUNTEREXAMPLE or b.kind != "megatron_lm" or b.cfg is None or "--no-" not in b.text:
            continue
        for key, value in b.cfg.values.items():
            if value is False and not config.has(key):
                config.set(key, True, b.cfg.locations.get(key))


def _continues(option: CanonicalConfig, cfg: CanonicalConfig) -> bool:
    """Settings that go on with an option under the same heading: no key written differently, and
    not a second implementation (that is another option)."""
    clash = any(k in option.values and option.values[k] != v for k, v in cfg.values.items())
    return not clash and not (_impl_of(option) and _impl_of(cfg))


def _merge_words(into: CanonicalConfig, cfg: CanonicalConfig, era: str | None) -> None:
    """A setting read from words fills a key the answer did not write out, in the era's spelling."""
    graph_keys = ("model.cuda_graph_impl", "model.cuda_graph_modules", "model.cuda_graph_scope",
                  "model.enable_cuda_graph", "model.external_cuda_graph")
    written_fields = {k.rsplit(".", 1)[-1] for k in into.values}
    for key, value in cfg.values.items():
        if key == "model.cuda_graph_modules" and era == "legacy":
            key = "model.cuda_graph_scope"
        if key.rsplit(".", 1)[-1] in written_fields:
            continue  # the code writes this field (in whatever section): words summarise it, they do not move it
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
    text = as_markdown(text)  # a notebook export's Markdown cells, Org =code= spans; lines kept in place
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
    blocks = [v for b in blocks for v in (variant_blocks(b) if b.role != REJECTED else []) or [b]]
    blocks = [h for b in blocks for h in [b] + (helper_blocks(b) if b.role != REJECTED else [])]
    read_text = _reader(findings)
    for block in blocks:
        if block.role == REJECTED or read_text is None:
            continue
        _read_block(block, read_text, source, findings)
    code = [b for b in blocks if b.kind == "python" and b.role not in (REJECTED, COUNTEREXAMPLE)]
    for what in internal_patches([b.text for b in code]):
        findings.append(Finding("patch", f"patches library internals: {what}", code[0].line, _snippet(code[0].text)))
    mark_arms(text, blocks)  # "A: impl none", "B: scope [attn]": each run of a plan is an option
    aliases = dict(_ALIAS.findall(text))  # "m = cfg.model": a line read alone still writes model.*
    for block in blocks:
        _settle(block, aliases)
    ex = Extraction(config=CanonicalConfig(source=source, fmt="answer"), blocks=blocks, findings=findings,
                    counter_config=CanonicalConfig(source=source, fmt="answer-counterexamples"))
    return ex.select(_auto_era(ex) if era == "auto" else era)


#: ``m = cfg.model``: a name that stands for a config section in the answer's code.
_ALIAS = re.compile(r"^[ \t]*([A-Za-z_]\w{0,20})[ \t]*=[ \t]*(?:cfg|config|conf|recipe|c)\.(model|ddp|rng|optimizer|train|"
                    r"dataset|checkpoint|logger|comm_overlap|rerun_state_machine|scheduler|mixed_precision)[ \t]*(?:#.*)?$", re.M)


def _settle(block: Block, aliases: dict[str, str] | None = None) -> None:
    """After reading: a key under a section alias (``m.cuda_graph_impl`` after ``m = cfg.model``)
    is that section's; the old side of a diff keeps only what the new side changed or removed; an
    era tag that the block's own keys contradict (0.18+ keys in a block said to be for 0.16) is
    dropped, so the block is judged for the task's era like any other."""
    if block.cfg is None:
        return
    for key in [k for k in block.cfg.values if aliases and k.split(".", 1)[0] in aliases and "." in k]:
        head, rest = key.split(".", 1)
        value = block.cfg.values[key]
        block.cfg.unset(key)
        block.cfg.set(f"{aliases[head]}.{rest}", value)
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
            f"{ERA_NOTE}0.16-0.17 but sets {', '.join(_current_only_keys(block.cfg))} (0.18+ only)"
        block.era = None


def _current_only_keys(cfg: CanonicalConfig) -> list[str]:
    from skill_tools.config.era import DEFAULT_LEGACY, era_for, migrations

    return [m.key for m in migrations(cfg, era_for(DEFAULT_LEGACY)) if "does not exist" in m.message]


def _auto_era(ex: Extraction) -> str | None:
    """Without a stated era: the untagged recommendation decides (None; the scorer infers the era from
    its spelling), or, when every candidate is tagged, the one era written (current if both)."""
    code = {b.era for b in ex.blocks if b.origin in WRITTEN_ORIGINS and b.cfg is not None and b.cfg.values
            and b.role not in (COUNTEREXAMPLE, DESCRIBED)}  # written config outranks a sentence's era
    if code:
        return None if None in code else next(iter(code)) if len(code) == 1 else "current"
    untagged = any(b.era is None and b.cfg is not None and b.cfg.values and b.role not in (COUNTEREXAMPLE, DESCRIBED)
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


def _launcher_list(text: str, kind: str, where: str) -> CanonicalConfig | None:
    """A YAML/JSON fragment whose top is a list (Ansible tasks, CI steps): its launcher parts, or
    ``None`` when it has none (the reader's refusal then stands)."""
    if kind not in ("yaml", "json"):
        return None
    from skill_tools.config import limits

    try:
        data = limits.load_yaml(text, where)[0]  # JSON is YAML; the bounded safe loader either way
    except Exception:  # unreadable as YAML too: the reader's own message is the finding
        return None
    if not isinstance(data, list):
        return None
    cfg = launcher_document(data, where)
    return cfg if cfg.env or cfg.values else None


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
    text, kind = block.text, block.kind
    if kind == "megatron_lm" and block.origin in _PROSE_ORIGINS:
        text = prose_flags(text)
        if not text:
            block.cfg = into
            return
    text = untemplated_python(text) if kind == "python" else text  # a Nextflow heredoc's `cfg = ${params.recipe}()`
    overrides = dotted_overrides(text, kind) or (bare_assignments(text) if kind == "python" else None)
    if overrides is not None:  # {"model.cuda_graph_impl": ...} or cuda_graph_impl = "local": overrides
        text, kind = overrides, "hydra"
    held = assigned_overrides(text) if kind not in ("hydra", "megatron_lm") else None
    try:
        cfg = read_text(text, fmt=kind, source=where)
        if held is not None and not cfg.values:
            cfg = read_text(held[0], fmt=held[1], source=where)
    except Exception as exc:  # InputError or a reader defect: the fragment is unreadable, scoring goes on
        if held is not None:
            block.kind, block.text = held[1], held[0]
            return _read_block(block, read_text, source, findings)  # the variables' overrides, read alone
        listed = _launcher_list(text, kind, where)
        if listed is not None:
            block.keys = sorted(listed.values) + sorted("env." + k for k in listed.env)
            into.env.update(listed.env)
            for key, value in listed.values.items():
                into.set(key, value, Location(source, block.line))
            block.cfg = into
            return
        block.error = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
        findings.append(Finding("parse", f"{block.kind} fragment not understood: {block.error}", block.line,
                                _snippet(block.text)))
        return
    cfg = normalise_keys(cfg, text)
    block.keys = sorted(cfg.values) + sorted("env." + k for k in cfg.env)
    for key, value in cfg.values.items():
        loc = cfg.locations.get(key)
        line = block.line + (loc.line - 1 if loc is not None and loc.line else 0)
        into.set(key, value, Location(source, line))
    into.env.update(cfg.env)
    if kind == "python":
        for name, value in call_env(text).items():
            into.env.setdefault(name, value)
    if cfg.unparsed:
        into.unparsed.extend(cfg.unparsed)
    block.cfg = into



def _with_case(blocks: list[Block], alts: list[CanonicalConfig], by_line: dict[int, int]) -> dict[int, set[str]]:
    """"If you run drop-and-pad (`moe_pad_expert_input_to_capacity: true`), `[moe]` is the
    alternative": the option is offered for that case, so it is judged with the case's settings,
    and the keys of the case are returned per option (the case is the option's premise)."""
    cases: dict[int, set[str]] = {}
    for b in blocks:
        if b.cfg is not None and b.role == DESCRIBED and b.why == IF_CASE and b.line in by_line:
            i = by_line[b.line]
            for key, value in b.cfg.values.items():
                if not alts[i].has(key):
                    alts[i].set(key, value, b.cfg.locations.get(key))
                cases.setdefault(i, set()).add(key)
    return cases
