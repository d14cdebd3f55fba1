"""Keep ``card.yaml``, ``BENCHMARK.md`` and ``skill-card.md`` in step with their sources.

The numbers a reader sees are never typed by hand: ``card sync`` generates them from the harness
results (``benchmarks/results/*-training-*.json``, ``*-inference-*.json``) and the eval scoring
reports (``*-evals-*.json``), and the card's ``validation_status`` from the claims file
(``benchmarks/validation.yaml``). It writes:

- ``card.yaml``: ``validated_on``, ``validation_status``, ``measured_results`` and
  ``expected_metric_change`` in the catalog's compact shapes (:mod:`skill_tools.package.card_compact`);
  the rest of the card is hand-written and kept as written (ruamel.yaml round trip);
- ``benchmarks/measured.yaml``: every variant of every results file, each naming its file;
- ``BENCHMARK.md`` (:mod:`skill_tools.package.benchmark_md`) and ``skill-card.md``
  (:mod:`skill_tools.package.skill_card`, which also reads the SKILL.md frontmatter);
- ``.claude-plugin/plugin.json`` from the SKILL.md frontmatter (:mod:`skill_tools.package.plugin_manifest`);
- ``references/rules.md`` from the rule catalog.

``--check`` regenerates in memory and reports what is stale, so CI fails when someone edits a
generated number by hand or adds a results file without re-syncing.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools import __version__
from skill_tools.package.benchmark_md import EvalMeta, render_benchmark
from skill_tools.package.card_compact import (
    DETAIL,
    compact_expected,
    compact_measured,
    load_claims,
    validated_on,
    validation_status,
)
from skill_tools.package.card_results import (  # noqa: F401  (re-exported: the card's public API)
    _NO_RESULTS,
    KINDS,
    LOSS_PARITY_TOL,
    RESULTS_DIR,
    ResultsFile,
    classify,
    expected_metric_change,
    generated_sections,
    load_results,
    measured_results,
)
from skill_tools.errors import InputError
from skill_tools.rules.catalog import RULES_DOC
from skill_tools.rules.catalog import load as load_catalog
from skill_tools.rules.reference_doc import render as render_rules_doc
from skill_tools.package.plugin_manifest import PLUGIN_JSON, render_plugin_json
from skill_tools.package.skill_card import SKILL_CARD, render_skill_card

CARD = "card.yaml"
BENCHMARK = "BENCHMARK.md"
SKILL_MD = "SKILL.md"
EVALS = "evals/evals.json"
GENERATED_KEYS = ("validated_on", "validation_status", "measured_results", "expected_metric_change")


@dataclass
class SyncReport:
    """What ``card sync`` found and produced."""

    files: list[ResultsFile]
    skipped: list[dict[str, str]]
    card_text: str
    benchmark_text: str
    stale: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.stale,
            "results_files": [{"path": f.rel, "kind": f.kind, "date": f.date} for f in self.files],
            "skipped": self.skipped,
            "stale": self.stale,
            "written": self.written,
        }
# --------------------------------------------------------------------------------------------
# round-trip YAML
# --------------------------------------------------------------------------------------------


def _yaml():
    from ruamel.yaml import YAML  # imported here: only card sync needs it

    y = YAML()
    y.preserve_quotes = True
    y.width = 100
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _to_ruamel(value: Any) -> Any:
    """Plain data -> ruamel nodes; short number pairs are written inline as ``[lo, hi]``."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        m = CommentedMap()
        for k, v in value.items():
            m[k] = _to_ruamel(v)
        return m
    if isinstance(value, list):
        s = CommentedSeq(_to_ruamel(v) for v in value)
        if all(not isinstance(v, (dict, list)) for v in value) and len(value) <= 8:
            s.fa.set_flow_style()
        return s
    return value


def render_card(card_text: str, sections: dict[str, Any], rel: str = CARD) -> str:
    """``card_text`` with the generated sections replaced; everything else kept as written."""
    from ruamel.yaml import YAMLError

    y = _yaml()
    try:
        data = y.load(card_text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(rel, f"YAML syntax error: {getattr(exc, 'problem', exc)}",
                         line=mark.line + 1 if mark else None) from None
    if not hasattr(data, "items"):
        raise InputError(rel, "must be a mapping of card fields")
    for key, value in sections.items():
        data[key] = _to_ruamel(value)
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def eval_meta(root: Path, skill: str | None) -> EvalMeta | None:
    """Skill name, evaluator and the task set's size and digest, for BENCHMARK.md and skill-card.md."""
    path = root / EVALS
    if not path.is_file():
        return None
    from skill_tools.evaluation.tasks import load_tasks  # the one task loader the scorer uses

    taskset = load_tasks(path, validate_schema=False)
    positive = sum(1 for t in taskset.tasks.values() if t.should_trigger)
    digest = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    return EvalMeta(skill=skill or root.resolve().name, evaluator=f"skill-tools evals {__version__}",
                    dataset=EVALS, dataset_digest=digest, tasks=len(taskset.tasks), positive=positive,
                    negative=len(taskset.tasks) - positive)


def _detail(files: list[ResultsFile]) -> str:
    from ruamel.yaml.comments import CommentedMap

    sections = generated_sections(files)
    data = CommentedMap((k, _to_ruamel(v)) for k, v in sections.items())
    buf = io.StringIO()
    buf.write("# Generated by `skill-tools card sync` from benchmarks/results/*.json: every measured variant\n"
              "# (measured_results) and how each graphed variant moved step time, loss, tokens and memory\n"
              "# against eager (expected_metric_change). card.yaml carries the compact summary. Do not edit.\n")
    _yaml().dump(data, buf)
    return buf.getvalue()


def card_sections(root: Path, files: list[ResultsFile]) -> dict[str, Any]:
    files = [f for f in files if f.user_evidence]  # the proxy loop's numbers are not user behaviour
    return {"validated_on": validated_on(files),
            "validation_status": validation_status(load_claims(root)) or "no claims file (benchmarks/validation.yaml)",
            "measured_results": compact_measured(files) or _NO_RESULTS,
            "expected_metric_change": compact_expected(files) or _NO_RESULTS}


def sync(root: Path, *, check: bool = False) -> SyncReport:
    """Regenerate; write the files (or, with ``check``, only report which are stale)."""
    import yaml

    from skill_tools.package.skill_md import frontmatter

    if not root.is_dir():
        raise InputError(str(root), "is not a directory", hint="pass the skill folder that holds card.yaml")
    card_path = root / CARD
    if not card_path.is_file():
        raise InputError(CARD, "missing", hint="card sync fills card.yaml's generated sections; create the card first")
    files, skipped = load_results(root)
    old_card = card_path.read_text(encoding="utf-8")
    new_card = render_card(old_card, card_sections(root, files))
    front = frontmatter(root)
    meta = eval_meta(root, front.get("name") if isinstance(front.get("name"), str) else None)
    new_bench = render_benchmark(files, meta)
    report = SyncReport(files, skipped, new_card, new_bench)
    outputs = [(CARD, new_card), (DETAIL, _detail(files)), (BENCHMARK, new_bench),
               (RULES_DOC, render_rules_doc(load_catalog()))]
    if (root / SKILL_MD).is_file():
        outputs.append((SKILL_CARD, render_skill_card(front, yaml.safe_load(new_card) or {}, files, meta)))
        plugin = render_plugin_json(front)
        if plugin is not None:
            outputs.append((PLUGIN_JSON, plugin))
    for rel, new in outputs:
        path = root / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == new:
            continue
        if check:
            report.stale.append(rel)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new, encoding="utf-8")
            report.written.append(rel)
    return report
