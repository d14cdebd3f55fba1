"""What a task's answer must *do*, declared by the task (``rubric.outcome``), and its verifiers.

- ``configuration``: the task ships a base config in its workspace (``base``: a stock recipe,
  launch script or YAML, read by the real reader of its format; ``recipe``: what the stock recipe's
  Python sets before a Bridge YAML overrides it, cited); the outcome is that base with the
  answer's changes applied (the files the agent changed in its workspace copy, else the settings
  its message suggests; a key deleted from a changed file is gone). The scorer validates that
  config, and ``--execute`` runs it.
- ``diagnosis``: the known cause is a failure signature of the log catalog (``cause``, an id of
  ``skill_tools/logs/signatures.yaml``). The answer must name it (``terms``, or the catalog's own
  messages) and its fix, laid over the config the task states, must clear the signature's
  validator rule.
- ``decision``: ``graphs_off`` (the right answer leaves CUDA graphs off: no graph settings turned
  on, and no prose recommending them) or ``graphs_on``.

``answer_format`` (``rubric.answer_format``: yaml | json | python | shell | diff) is the final
fenced block the task's prompt asks for. Answers without it are still read; the report gives the
extraction's confidence either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from skill_tools.config.era import read_intent
from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError
from skill_tools.evaluation import workspace as ws
from skill_tools.evaluation.extract import WORDS, Extraction, Finding
from skill_tools.evaluation.fragments import SUGGESTED, Block, screen
from skill_tools.evaluation.rubric import AnswerContext, CheckResult, check_concept, check_concept_absent

KINDS = ("configuration", "diagnosis", "decision")
DECISIONS = ("graphs_off", "graphs_on")
_SUFFIX = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".py": "python", ".sh": "megatron_lm", ".bash": "megatron_lm"}
#: Prose that recommends turning CUDA graphs on (judged with its polarity: "do not enable" is not it).
ENABLE_TERMS = ["enable cuda graphs", "turn on cuda graphs", "use cuda graphs", "enable graphs", "cuda_graph_impl",
                "cuda-graph-impl", "enable_cuda_graph", "external_cuda_graph", "cuda_graph_modules", "cuda_graph_scope"]


@dataclass
class Outcome:
    kind: str
    spec: dict[str, Any]
    base: CanonicalConfig | None = None
    base_path: str | None = None
    base_text: str = ""
    #: the keys the base file itself writes (not the recipe's under it)
    file_keys: frozenset[str] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "base": self.base_path,
                **{k: v for k, v in self.spec.items() if k in ("cause", "decision", "answer_format")}}


def task_outcome(task_data: dict[str, Any], root: Path | None) -> Outcome | None:
    """The outcome the task declares, its base config read (InputError when the base is missing)."""
    spec = (task_data.get("rubric") or {}).get("outcome")
    if not spec:
        return None
    out = Outcome(str(spec["kind"]), dict(spec))
    if out.kind == "configuration" and spec.get("base"):
        folder = ws.resolve(task_data, root)
        if folder is None:
            raise InputError(str(task_data.get("id")), "a configuration outcome with a base needs a workspace",
                             hint='add "workspace": "workspaces/<id>" to the task')
        path = (folder / str(spec["base"])).resolve()
        if not path.is_relative_to(folder) or not path.is_file():
            raise InputError(str(spec["base"]), f"task {task_data.get('id')!r}: base config not found in its workspace")
        from skill_tools.config.readers import read_text

        out.base_text = path.read_text(encoding="utf-8")
        out.base = read_text(out.base_text, fmt=_fmt(path.name, out.base_text), source=f"{task_data.get('id')}:{spec['base']}")
        out.base_path, out.file_keys = str(spec["base"]), frozenset(out.base.values)
        recipe = spec.get("recipe")
        if recipe:  # the recipe's Python config sits under the base file: the file's keys win
            under = CanonicalConfig(source=str(recipe["source"]), fmt=out.base.fmt)
            for key, value in recipe["values"].items():
                under.set(key, value)
            out.base = apply(under, out.base)
    return out


def _fmt(name: str, text: str) -> str:
    from skill_tools.config.readers import detect_format

    fmt = _SUFFIX.get(Path(name).suffix.lower())
    if fmt == "megatron_lm" and "run_script.py" in text:
        return "run_script"
    return fmt or detect_format(text)


@dataclass
class FileChanges:
    """The settings an agent's workspace edits make: keys set or changed, keys removed."""

    config: CanonicalConfig = field(default_factory=CanonicalConfig)
    removed: set[str] = field(default_factory=set)
    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def read_changes(files: dict[str, str], deleted: list[str], task_data: dict[str, Any], root: Path | None) -> FileChanges:
    """Each changed file read by its format's real reader after the security screen; a file the
    task shipped is compared with the shipped version, so only what the agent changed counts."""
    from skill_tools.config.readers import read_text

    out = FileChanges(CanonicalConfig(source="workspace", fmt="answer"))
    folder = ws.resolve(task_data, root) if task_data.get("workspace") else None
    for rel, text in sorted(files.items()):
        fmt = _fmt(rel, text)
        problem = screen(Block("python" if fmt == "python" else fmt if fmt in ("yaml", "json") else "shell", text, 1))
        if problem is not None:
            out.findings.append(Finding(problem.kind, f"workspace file {rel}: {problem.message}", problem.line, problem.evidence))
            continue
        try:
            new = read_text(text, fmt=fmt, source=f"workspace:{rel}")
        except Exception as exc:  # an unreadable file is reported; scoring goes on
            out.findings.append(Finding("parse", f"workspace file {rel} ({fmt}) not understood: {str(exc)[:200]}"))
            continue
        old = None
        shipped = folder / rel if folder is not None else None
        if shipped is not None and shipped.is_file():
            try:
                old = read_text(shipped.read_text(encoding="utf-8"), fmt=fmt, source=f"task:{rel}")
            except Exception:  # the shipped file is the task's; a failure here leaves the whole file counted
                old = None
        for key, value in new.values.items():
            if old is None or not old.has(key) or old.get(key) != value:
                out.config.set(key, value)
        for name, value in new.env.items():
            if old is None or old.env.get(name) != value:
                out.config.env[name] = value
        if old is not None:
            out.removed |= {k for k in old.values if not new.has(k)}
        out.files.append(rel)
    if deleted:
        out.findings.append(Finding("parse", f"the agent deleted {', '.join(deleted[:5])} from its workspace"))
    return out


def rewritten_removals(blocks: list[Block], file_keys: frozenset[str]) -> set[str]:
    """The base's keys an answer leaves out when it pastes the whole base file back, edited: one
    written block (a fence, read line by line or whole) that restates most (80 %) of the base's keys
    is that file, and a key it no longer has is deleted, as in a changed workspace file."""
    keys = set(file_keys)
    if len(keys) < 5:
        return set()
    by_group: dict[int, set[str]] = {}
    for b in blocks:
        if b.origin in ("fenced", "unfenced") and b.role == SUGGESTED and b.cfg is not None and b.error is None:
            by_group.setdefault(b.group or b.line, set()).update(b.cfg.values)
    for written in by_group.values():
        if len(keys & written) >= 0.8 * len(keys):
            return keys - written
    return set()


def apply(base: CanonicalConfig | None, answer: CanonicalConfig, removed: set[str] = frozenset()) -> CanonicalConfig:
    """The config the user would run: the base with the answer's settings, minus removed keys."""
    if base is None:
        return answer
    out = CanonicalConfig(source=answer.source, fmt=base.fmt)
    for key, value in base.values.items():
        if key not in removed:
            out.set(key, value, base.locations.get(key))
    out.env.update(base.env)
    for key, value in answer.values.items():
        out.set(key, value, answer.locations.get(key))
    out.env.update(answer.env)
    return out


# --------------------------------------------------------------------------------------------
# verifiers
# --------------------------------------------------------------------------------------------


def check_diagnosis(ctx: AnswerContext, outcome: Outcome, fix_findings: Callable[[], tuple[set[str], set[str], set[str]] | None]) -> list[CheckResult]:
    """The known cause named, and the fix clearing the cause's validator rule on the stated config.

    ``fix_findings`` returns (rules the stated config breaks, rules it breaks with the answer's
    settings applied, the keys those settings change), or None when nothing could be validated."""
    cause = str(outcome.spec["cause"])
    sig = _signature(cause)
    named = check_concept(ctx, {"name": f"cause {cause}", "any": list(outcome.spec["terms"])})
    named.type = "diagnosis"
    out = [named]
    rule = getattr(sig, "rule", None)
    if not rule:
        return out
    found = fix_findings()
    if found is None or rule not in found[0]:
        out.append(CheckResult("diagnosis", f"fix clears {rule}", None,
                               f"skipped: the task's stated config does not show rule {rule} to clear"))
        return out
    if not ctx.answer_keys:
        out.append(CheckResult("diagnosis", f"fix clears {rule}", 0.0, "the answer writes no setting that fixes it"))
    elif not _touches(found[2], rule):
        out.append(CheckResult("diagnosis", f"fix clears {rule}", None,
                               f"not read: the settings read from the answer leave the keys of rule {rule} as stated "
                               "(its fix is not in a form the reader takes)"))
    elif rule in found[1]:
        out.append(CheckResult("diagnosis", f"fix clears {rule}", 0.0,
                               f"the answer's settings leave rule {rule} in place (the cause is not fixed)", fatal=True))
    else:
        out.append(CheckResult("diagnosis", f"fix clears {rule}", 1.0,
                               f"with the answer's settings the stated config no longer breaks {rule}"))
    return out


def _touches(changed: set[str], rule: str) -> bool:
    """The answer changes a stated key the rule reads, or the implementation: a fix that leaves the
    rule in place is then the answer's own; otherwise the reader missed the fix, and it is not judged."""
    from skill_tools.evaluation.precedence import IMPL_KEYS
    from skill_tools.rules.catalog import load

    try:
        keys = set(load().by_id(rule).keys)
    except KeyError:
        return True
    return bool((keys | set(IMPL_KEYS)) & changed)


@lru_cache(maxsize=64)
def _signature(cause: str) -> Any:
    """The catalog entry of ``cause`` (a task set naming an unknown cause is an input error)."""
    from skill_tools.logs.diagnose import signature

    try:
        return signature(cause)
    except KeyError:
        raise InputError(cause, "no such cause in the failure catalog (skill_tools/logs/signatures.yaml)",
                         hint="name a signature id as the diagnosis outcome's cause") from None


def check_decision(ctx: AnswerContext, outcome: Outcome) -> list[CheckResult]:
    decision = str(outcome.spec.get("decision"))
    intent = read_intent(ctx.config)
    words_only = not any(b.origin != WORDS and b.cfg is not None and b.cfg.values for b in ctx.extraction.suggested)
    if decision == "graphs_off":
        if intent.enabled and ctx.answer_keys:
            return [CheckResult("decision", "leave CUDA graphs off", 0.0,
                                f"the answer turns graphs on (impl {intent.impl})", fatal=True)]
        prose = check_concept_absent(ctx, {"name": "advice to turn CUDA graphs on", "any": ENABLE_TERMS})
        prose.type = "decision"
        return [prose if prose.score == 0.0 else
                CheckResult("decision", "leave CUDA graphs off", 1.0, "the answer leaves CUDA graphs off")]
    if intent.enabled:
        return [CheckResult("decision", "turn CUDA graphs on", 1.0, f"graphs on (impl {intent.impl})")]
    return [CheckResult("decision", "turn CUDA graphs on", 0.0,
                        "the answer does not turn graphs on" + (" (only words)" if words_only else ""), fatal=False)]


_FENCE_KINDS = {"yaml": ("yaml", "yml"), "json": ("json", "jsonc"), "python": ("python", "py", "python3"),
                "shell": ("bash", "sh", "shell", "console", "zsh"), "diff": ("diff", "patch")}


def extraction_confidence(text: str, ex: Extraction, answer_format: str | None, workspace_files: list[str]) -> dict[str, str]:
    """How surely the config was read: ``high`` (the files the agent changed, or the final fenced
    block of the declared kind), ``medium`` (fenced blocks), ``low`` (inline settings or words
    only), ``none`` (no settings)."""
    if workspace_files:
        return {"confidence": "high", "why": f"read from the files the agent changed: {', '.join(workspace_files[:4])}"}
    import re

    fences = re.findall(r"^\s*(?:`{3,}|~{3,})\s*([\w+.-]*)", text, re.M)
    opening = fences[::2]
    last = opening[-1].lower() if opening else None
    if answer_format and last in _FENCE_KINDS.get(answer_format, (answer_format,)):
        return {"confidence": "high", "why": f"the final fenced block is the declared {answer_format}"}
    origins = {b.origin for b in ex.suggested if b.cfg is not None and (b.cfg.values or b.cfg.env)}
    missing = f"; no final {answer_format} block as the task asks" if answer_format else ""
    if "fenced" in origins:
        return {"confidence": "medium", "why": "read from fenced blocks" + missing}
    if origins:
        return {"confidence": "low", "why": "read from inline settings and prose (" + ", ".join(sorted(origins)) + ")" + missing}
    return {"confidence": "none", "why": "no settings found" + missing}
