"""Score answers: per check -> per behavior -> per answer -> per task, condition and uplift.

Every number carries its explanation. Tasks with a rubric are scored by its checks; expected
behaviors the rubric does not cover, and tasks without a rubric (plain NVSkills tasks), are
scored by comparing the answer's config with the config stated in ``ground_truth`` (read by
the same extractor) and by coverage of each behavior's key terms.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from skill_tools.config.era import DEFAULT_CURRENT, DEFAULT_LEGACY, Era, era_for, migrations
from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.alternatives import check_option_values, check_options
from skill_tools.evaluation.apply_commands import command_blocks
from skill_tools.evaluation.extract import SUGGESTED, WORDS, Block, Extraction, extract_config
from skill_tools.evaluation.generic import (GENERIC_NOTE, about_cuda_graphs, check_assertion, check_relevance,
                                            own_task_set)
from skill_tools.evaluation.notebook_cells import as_markdown
from skill_tools.evaluation.outcome import (Outcome, apply, check_decision, check_diagnosis, extraction_confidence,
                                            read_changes, rewritten_removals, task_outcome)
from skill_tools.evaluation.coverage import GRAPH_ADVICE_TERMS, check_coverage, reference_checks, stay_out_behavior
from skill_tools.evaluation.answer_context import GRAPH_KEY_MARKERS
from skill_tools.evaluation.rubric import (AnswerContext, answer_errors, has_check, required_behavior, restated_keys,
                                          run_check)
from skill_tools.evaluation.precedence import graphs_on, written_suggestions
from skill_tools.evaluation.restated_blocks import demote_restated, kept_keys
from skill_tools.evaluation.setup import Setup, keep_stated_impl, task_setup, with_stated_graphs
from skill_tools.evaluation.aggregate import aggregate
from skill_tools.evaluation.answer_score import (  # noqa: F401  (re-exported: the report's vocabulary)
    DEFAULT_THRESHOLD,
    unreadable_answer,
    FATAL_MARGIN,
    OFF_TOPIC_FACTOR,
    ON_TOPIC_WEIGHT,
    AnswerScore,
    BehaviorScore,
)
from skill_tools.evaluation.tasks import AnswerRecord, Task, TaskSet
from skill_tools.evaluation.tool_commands import Refusal
from skill_tools.evaluation.derived import BEHAVIORS, derived_checks

# ---------------------------------------------------------------------------- scoring one answer


class Scorer:
    """Scores answers against a task set; validation results are cached by config content."""

    def __init__(self, taskset: TaskSet, *, threshold: float = DEFAULT_THRESHOLD, executor: Any = None,
                 refusal: Refusal | None = None):
        self.taskset = taskset
        self.threshold = threshold
        self.executor = executor
        self.refusal = refusal  # skill-tools' own parser (skill_tools.cli.refusal), given by the command layer
        self._validation_cache: dict[str, dict[str, Any]] = {}
        self._reference_cache: dict[str, list[dict[str, Any]]] = {}
        self._setup_cache: dict[str, Setup] = {}
        self._stated_cache: dict[str, CanonicalConfig] = {}
        self._outcome_cache: dict[str, Outcome | None] = {}
        self._own_set = own_task_set([t.data for t in taskset.tasks.values()], taskset.meta)

    def score(self, record: AnswerRecord) -> AnswerScore:
        """Score one answer; an answer that cannot be read scores 0 with the reason, never a crash."""
        try:
            return self._score(record)
        except Exception as exc:  # a defect or an unreadable answer: reported on the answer, scoring goes on
            result = AnswerScore(record, self.taskset.tasks.get(record.id), threshold=self.threshold)
            result.problem = f"answer could not be scored: {type(exc).__name__}: {str(exc)[:200]}"
            return result

    def _score(self, record: AnswerRecord) -> AnswerScore:
        task = self.taskset.tasks.get(record.id)
        result = AnswerScore(record, task, threshold=self.threshold)
        if record.rejected:
            result.problem = "; ".join(f.message for f in record.findings if f.kind == "security")
            return result
        if task is None:
            result.problem = f"no task with id {record.id!r} in {self.taskset.source}"
            return result
        unreadable = unreadable_answer(record)
        if unreadable:
            result.problem = f"answer cannot be read: {unreadable}"
            return result
        rubric = task.rubric or {}
        if "pass_threshold" in rubric:
            result.threshold = float(rubric["pass_threshold"])
        if not about_cuda_graphs(task.data, self._own_set):
            return self._generic(task, record, result)
        setup = result.setup = self._setup(task)
        outcome = result.outcome = self._outcome(task)
        ex = extract_config(record.answer, source=f"answer:{record.id}:{record.condition}", era=setup.era or "auto")
        changes = read_changes(record.files, record.deleted, task.data, task.root) if record.files or record.deleted else None
        added = command_blocks(record.answer, ex, self.refusal)  # what its `skill-tools apply …` commands write
        if changes is not None:
            ex.findings.extend(changes.findings)
            if changes.config.values or changes.config.env:
                block = Block("workspace", "", 0, "workspace", SUGGESTED, keys=sorted(changes.config.values))
                block.cfg, block.why = changes.config, "files the agent changed: " + ", ".join(changes.files)
                added.append(block)
        if added:
            ex.blocks.extend(added)
            ex.select(ex.era)
        era = self._era(ex, setup)
        if setup.era is None and ex.era != era.name:
            ex.select(era.name)
        keep_stated_impl(ex, setup)
        if task.should_trigger and demote_restated(ex, self._stated(task, setup)):
            ex.select(era.name)
        result.extraction, result.era = ex, era.mcore_version
        removed = changes.removed if changes else rewritten_removals(ex.blocks, outcome.file_keys if outcome else frozenset())
        answer_keys = frozenset(ex.config.values) | frozenset(ex.config.env) | frozenset(removed)
        result.confidence = extraction_confidence(record.answer, ex, rubric.get("answer_format"),
                                                  changes.files if changes else [])
        question = str(task.data.get("question", ""))
        written = frozenset(k for b in written_suggestions(ex.blocks) for k in b.cfg.values)
        restated = restated_keys(ex.config, self._stated(task, setup), question, written) | kept_keys(ex) if task.should_trigger else frozenset()
        base = self._on_setup(ex.config, setup, outcome, removed)
        if outcome is not None and outcome.base is not None:
            ex.config = base  # checks read the config the user would run: the base with the answer's changes
        result.validation = self._validate(ex, base, era) if task.should_trigger else None
        if result.validation and result.validation.get("errors"):
            result.validation = dict(result.validation, context_rules=self._context_rules(task, setup, ex, era))
        if task.should_trigger and ex.alternatives and result.validation and "skipped" not in result.validation:
            result.behaviors.extend(self._options(task, setup, outcome, ex, era, result.validation, removed))
        if self.executor is not None and task.should_trigger and has_check(rubric, "executes") and not ex.unsafe:
            result.execution = self._execute(task, ex, base, setup, era)
        ctx = AnswerContext(as_markdown(record.answer), ex, era, result.validation, result.execution, answer_keys,
                            restated=restated)  # a notebook export's Markdown cells read as Markdown
        result.behaviors = self._behaviors(task, ctx) + result.behaviors
        if outcome is not None:
            result.behaviors.append(self._outcome_behavior(task, outcome, ctx, setup, era))
        for kind, check in derived_checks(record.answer, ex, answer_keys - restated, self.refusal):
            result.behaviors.append(BehaviorScore(None, BEHAVIORS[kind][0], 1.0, [check], BEHAVIORS[kind][1]))
        return result

    @staticmethod
    def _generic(task: Task, record: AnswerRecord, result: AnswerScore) -> AnswerScore:
        """Another skill's task: its assertions as written and relevance, no CUDA-graph checks."""
        ex = extract_config("", source=f"answer:{record.id}")  # nothing Megatron-specific is read
        result.extraction, result.scoring = ex, "generic"
        ctx = AnswerContext(record.answer, ex, era_for(DEFAULT_CURRENT))
        result.behaviors = [BehaviorScore(i, text, 1.0, [check_assertion(ctx, text)], GENERIC_NOTE)
                            for i, text in enumerate(task.behaviors)]
        if task.should_trigger:
            result.behaviors.append(BehaviorScore(None, "answers the question asked", ON_TOPIC_WEIGHT,
                                                  [check_relevance(ctx, str(task.data.get("question", "")))],
                                                  GENERIC_NOTE))
        return result

    def _options(self, task: Task, setup: Setup, outcome: Outcome | None, ex: Extraction, era: Era,
                 validation: dict[str, Any], removed: set[str]) -> list[BehaviorScore]:
        """Options offered beside the recommendation, validated like it (:mod:`alternatives`): a
        failing one is fatal; passing ones are reported with no weight."""
        check = check_options(ex.config, ex.alternatives,
                              lambda cfg: self._validate(ex, self._on_setup(cfg, setup, outcome, removed), era),
                              validation, self._context_rules(task, setup, ex, era), self._stated(task, setup),
                              ex.cases)
        check = check if check is not None and check.fatal else check_option_values(ex.alternatives, task.rubric, ex.cases) or check
        if check is None:
            return []
        return [BehaviorScore(None, "options offered beside the recommendation are valid",
                              1.0 if check.fatal else 0.0, [check], "derived: alternatives, validated")]

    def _outcome(self, task: Task) -> Outcome | None:
        if task.id not in self._outcome_cache:
            self._outcome_cache[task.id] = task_outcome(task.data, task.root)
        return self._outcome_cache[task.id]

    def _outcome_behavior(self, task: Task, outcome: Outcome, ctx: AnswerContext, setup: Setup, era: Era) -> BehaviorScore:
        """The declared outcome, verified: the diagnosis named and fixed, or the decision kept; a
        configuration outcome is the config every other check reads (its base with the changes)."""
        if outcome.kind == "diagnosis":
            def fix_findings():
                stated = self._stated(task, setup)
                probe = Extraction(config=stated, blocks=[], findings=[], counter_config=CanonicalConfig())
                before = self._validate(probe, stated, era) if stated.values else None
                if ctx.extraction.unsafe or not before or "skipped" in before:
                    return None
                fixed = apply(stated, ctx.config)
                after = self._validate(ctx.extraction, fixed, era) or {}
                rules = lambda v: {str(f.get("rule")) for f in v.get("errors", []) + v.get("warnings", [])}  # noqa: E731
                return rules(before), rules(after), {k for k, v in fixed.values.items() if stated.get(k) != v}
            checks = check_diagnosis(ctx, outcome, fix_findings)
        elif outcome.kind == "decision":
            checks = check_decision(ctx, outcome)
        else:
            checks = [run_check(ctx, {"type": "validates", "name": "the outcome config validates"})]
        return BehaviorScore(None, f"outcome: {outcome.kind}", float(outcome.spec.get("weight", 1)), checks,
                             f"declared by the task ({outcome.kind}" + (f", base {outcome.base_path}" if outcome.base_path else "") + ")")

    def _setup(self, task: Task) -> Setup:
        if task.id not in self._setup_cache:
            self._setup_cache[task.id] = task_setup(task.data)
        return self._setup_cache[task.id]

    @staticmethod
    def _on_setup(cfg: CanonicalConfig, setup: Setup, outcome: Outcome | None = None,
                  removed: set[str] = frozenset()) -> CanonicalConfig:
        """The answer's settings laid over the task's stated setup and base config (the config the
        user would run); keys the agent deleted from the base are gone."""
        start = outcome.base if outcome is not None and outcome.base is not None else None
        context = setup.context_for(cfg)
        if context:
            ctx = CanonicalConfig.from_nested(context, source=cfg.source, fmt=cfg.fmt)
            start = apply(start, ctx) if start is not None else ctx
        if start is None:
            return cfg
        return apply(start, cfg, removed)

    def _execute(self, task: Task, ex: Extraction, base: CanonicalConfig, setup: Setup, era: Era) -> dict[str, Any]:
        if not ex.config.values:
            return {"skipped": "no config extracted from the answer"}
        result = self.executor.run(base, setup.workload, era.name)
        if result.get("error_class") == "refused" or (result.get("plan") or {}).get("refused"):
            result = dict(result, refused_by=self._refused_by(task, ex, base, era, setup))
        return result

    def _stated(self, task: Task, setup: Setup) -> CanonicalConfig:
        """The config the task states: its setup plus the settings its question writes out
        (``cuda_graph_impl="transformer_engine"``; not settings read from words)."""
        if task.id not in self._stated_cache:
            outcome = self._outcome(task)
            cfg = CanonicalConfig.from_nested(setup.context, source="task setup", fmt="setup") if setup.context \
                else CanonicalConfig(source="task setup", fmt="setup")
            if outcome is not None and outcome.base is not None:
                cfg = apply(outcome.base, cfg)
            q = extract_config(str(task.data.get("question", "")), source=f"question:{task.id}", era=setup.era or "auto")
            for b in q.blocks:
                if b.cfg is not None and b.error is None and b.origin != WORDS and b.role == SUGGESTED:
                    for key, value in b.cfg.values.items():
                        cfg.set(key, value)
            self._stated_cache[task.id] = with_stated_graphs(cfg, setup)
        return self._stated_cache[task.id]

    def _context_rules(self, task: Task, setup: Setup, ex: Extraction, era: Era) -> list[str]:
        """Rules the task's stated config breaks on its own and the answer leaves as they were: not
        charged to an answer that does not touch their keys. An error the answer's settings bring
        about (absent from the stated config), or one the answer keeps while changing the stated
        value of a CUDA-graph key (switching the impl but not adding the RNG tracker the error asks for), is the
        answer's; changing other keys (recompute, to fix what the task asks about) leaves the stated
        graph setup's own errors with the task. Inference setups are not charged for training
        prerequisites the answer does not write: Megatron-LM enables the TE RNG tracker for CUDA
        graphs itself and MCore's graph manager accepts the inference RNG tracker
        (training/arguments.py:1873-1879, core/transformer/cuda_graphs.py:1822-1826 @ core 0.19.2)."""
        stated = self._stated(task, setup)
        probe = Extraction(config=stated, blocks=[], findings=[], counter_config=CanonicalConfig())
        v = self._validate(probe, stated, era) or {} if stated.values else {}
        rules = {str(e.get("rule")) for e in v.get("errors", [])}
        changed = any(stated.has(k) and stated.get(k) != val for k, val in ex.config.values.items()
                      if any(m in k for m in GRAPH_KEY_MARKERS))
        if changed:
            rules = set()
        outcome = self._outcome(task)
        cause = str(outcome.spec.get("cause") or "") if outcome is not None else ""
        if setup.workload == "inference" or ((graphs_on(stated) or setup.graph_impl) and "rng" not in cause):
            rules.add("te-rng-tracker-required")  # a setup that already runs graphs has what every impl needs
        return sorted(rules)

    def _refused_by(self, task: Task, ex: Extraction, base: CanonicalConfig, era: Era, setup: Setup) -> str:
        """Whether the answer's own settings or the task's stated setup made the harness refuse."""
        v = self._validate(ex, base, era) or {}
        errors = v.get("errors", [])
        own = answer_errors(errors, frozenset(ex.config.values) | frozenset(ex.config.env),
                            self._context_rules(task, setup, ex, era))
        if own:
            first = own[0]
            return f"answer: its own settings fail validation on the task's setup ([{first.get('rule')}] " \
                   f"{str(first.get('message'))[:160]})"
        if errors:
            first = errors[0]
            return f"task context: the stated setup fails validation before the answer's settings matter " \
                   f"([{first.get('rule')}])"
        return "harness: the harness cannot run this config (not a validator error)"

    def _behaviors(self, task: Task, ctx: AnswerContext) -> list[BehaviorScore]:
        rubric = task.rubric
        texts = task.behaviors
        out: list[BehaviorScore] = []
        covered: set[int] = set()
        if rubric:
            for spec in rubric.get("behaviors", []):
                idx = int(spec["behavior"])
                covered.add(idx)
                text = texts[idx] if 0 <= idx < len(texts) else f"<behavior {idx}>"
                if spec.get("not_scorable"):
                    out.append(BehaviorScore(idx, text, float(spec.get("weight", 1)), [], f"not scored: {spec['not_scorable']}"))
                    continue
                checks = [run_check(ctx, c) for c in spec.get("checks", [])]
                checks += required_behavior(text, checks) if spec.get("required") else []
                out.append(BehaviorScore(idx, text, float(spec.get("weight", 1)), checks))
        for idx, text in enumerate(texts):
            if idx in covered:
                continue
            if not task.should_trigger and stay_out_behavior(text):
                checks = [run_check(ctx, {"type": "no_graph_config"}),
                          run_check(ctx, {"type": "concept_absent", "name": "CUDA-graph knobs", "any": GRAPH_ADVICE_TERMS})]
                out.append(BehaviorScore(idx, text, 1.0, checks, "derived: stays out of CUDA-graph advice"))
                continue
            out.append(BehaviorScore(idx, text, 1.0, [check_coverage(ctx, text)], "derived: specific terms"))
        if not rubric:
            out.extend(self._derived(task, ctx))
        if task.should_trigger and rubric and not has_check(rubric, "validates"):  # a diagnosis's fix is advice too
            check = run_check(ctx, {"type": "written_settings"})
            if check.score is not None:
                out.append(BehaviorScore(None, check.name, 1.0, [check], "derived: rules engine on what it writes"))
        if task.should_trigger:
            check = run_check(ctx, {"type": "on_topic", "question": task.data.get("question", "")})
            out.append(BehaviorScore(None, "answers the question asked", ON_TOPIC_WEIGHT, [check], "derived: relevance"))
        return out

    def _derived(self, task: Task, ctx: AnswerContext) -> list[BehaviorScore]:
        """Plain NVSkills tasks: ground-truth config comparison, and staying out for negatives."""
        if not task.should_trigger:
            checks = [run_check(ctx, {"type": "no_graph_config"}),
                      run_check(ctx, {"type": "concept_absent", "name": "CUDA-graph knobs", "any": GRAPH_ADVICE_TERMS})]
            return [BehaviorScore(None, "stays out of CUDA-graph advice (should_trigger=false)", 1.0, checks, "derived")]
        specs = self._reference(task)
        if not specs:
            if ctx.config.values:
                return [BehaviorScore(None, "the suggested config validates for the task's setup", 1.0,
                                      [run_check(ctx, {"type": "validates"})], "derived: rules engine")]
            return []
        checks = [run_check(ctx, s) for s in specs]
        out = [BehaviorScore(None, "config matches the one stated in ground_truth", 1.0, checks,
                             "derived: reference config extracted from ground_truth")]
        if ctx.config.values:
            out.append(BehaviorScore(None, "the suggested config validates for the task's setup", 1.0,
                                     [run_check(ctx, {"type": "validates"})], "derived: rules engine"))
        return out

    def _reference(self, task: Task) -> list[dict[str, Any]]:
        if task.id not in self._reference_cache:
            ref = extract_config(task.data.get("ground_truth", ""), source=f"ground_truth:{task.id}").config
            self._reference_cache[task.id] = reference_checks(ref)
        return self._reference_cache[task.id]

    @staticmethod
    def _era(ex: Extraction, setup: Setup) -> Era:
        if setup.mcore_version:
            return era_for(setup.mcore_version)
        current = era_for(DEFAULT_CURRENT)
        if ex.era == "legacy":
            return era_for(DEFAULT_LEGACY)
        if ex.era == "current" or not migrations(ex.config, current):
            return current
        legacy = era_for(DEFAULT_LEGACY)
        return legacy if not migrations(ex.config, legacy) else current

    def _validate(self, ex: Extraction, cfg: CanonicalConfig, era: Era) -> dict[str, Any] | None:
        """Rule findings for the answer's config laid over the task's stated setup."""
        if not (ex.config.values or ex.config.env or ex.alternatives) or ex.unsafe:
            return None  # an environment alone is advice too, and so are runs offered beside no main config
        key = hashlib.sha256(json.dumps([dict(cfg), cfg.env, era.mcore_version], sort_keys=True,
                                        default=str).encode()).hexdigest()
        if key in self._validation_cache:
            return self._validation_cache[key]
        try:
            from skill_tools.rules.engine import check
        except ImportError as exc:
            result: dict[str, Any] = {"skipped": f"rules engine unavailable ({exc})"}
        else:
            try:
                findings = check(cfg, era)
            except Exception as exc:  # a rules defect must not stop scoring; it is reported
                result = {"skipped": f"rules engine failed on this config: {type(exc).__name__}: {exc}"[:300]}
            else:
                dicts = [f.to_dict() for f in findings]
                result = {"mcore_version": era.mcore_version,
                          "errors": [d for d in dicts if d.get("severity") == "error"],
                          "warnings": [d for d in dicts if d.get("severity") == "warning"]}
        self._validation_cache[key] = result
        return result


# --------------------------------------------------------------------------------------------
# every answer
# --------------------------------------------------------------------------------------------


def score_all(taskset: TaskSet, records: list[AnswerRecord], *, threshold: float = DEFAULT_THRESHOLD,
              executor: Any = None, judge_argv: list[str] | None = None,
              judge_timeout_s: float = 120.0, judge_jobs: int = 1, judge_export: Any = None,
              refusal: Refusal | None = None) -> dict[str, Any]:
    """Score every answer and aggregate into the JSON report. ``judge_argv``: the judge's verdicts go
    beside each deterministic score (:mod:`judge`); ``judge_export`` (a path): its requests are written
    there; ``refusal`` (skill-tools' parser): the skill-tools commands an answer gives are judged."""
    from skill_tools.evaluation import judge
    scorer = Scorer(taskset, threshold=threshold, executor=executor, refusal=refusal)
    results = [scorer.score(r) for r in records]
    if judge_argv:
        judge.judge_all(judge_argv, taskset, results, judge_timeout_s, jobs=judge_jobs)
    report = aggregate(taskset, results, threshold) | ({"judge": judge.summary(results)} if judge_argv else {})
    if judge_export:
        report["judge_requests_exported"] = judge.export_requests(results, judge_export)
    return report
