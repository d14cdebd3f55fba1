"""BENCHMARK.md, generated from the results files (``skill-tools card sync``).

The layout is the catalog's v3 report (``.github/scripts/aggregate_benchmarks.py`` in
NVIDIA/skills reads ``## Evaluation Metadata`` bullets: skill, evaluation date, evaluator version,
tasks, dataset digest, attempts per task). Only what was measured is reported: the deterministic
rubric (``skill-tools evals score``) on the answers it scored, the GPU execution of the configs
those answers suggest, and the harness A/Bs. A ``## Results at a Glance`` table (the rows the
aggregator turns into per-agent scores) is written only for reports of a real agent run
(``agent_run`` in the evals report, written by ``skill-tools evals run``); sample answers are
never presented as an agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from skill_tools.numbers import as_number, fmt, fmt_ci
from skill_tools.package.card_results import (
    _NO_RESULTS,
    KINDS,
    ResultsFile,
    ci_of,
    modules_of,
    variant_status,
    workload_label,
)


@dataclass(frozen=True)
class EvalMeta:
    """What the report says about the skill and its task set (from SKILL.md and evals/evals.json)."""

    skill: str
    evaluator: str  # e.g. "skill-tools evals 0.1.0"
    dataset: str  # path of the task set, relative to the skill root
    dataset_digest: str  # "sha256:<hex>"
    tasks: int
    positive: int
    negative: int


def _fmt(x: Any, nd: int = 2) -> str:
    return fmt(as_number(x), nd)


def _fmt_ci(obj: Any, point: str, nd: int = 2, prefix: str = "") -> str:
    return fmt_ci(*ci_of(obj, point), digits=nd, prefix=prefix)


def _yn(x: Any) -> str:
    return {True: "yes", False: "no"}.get(x, "—")


def _env_table(f: ResultsFile) -> list[str]:
    env = f.env
    rows = [("date", f.date)] + [(k, env.get(k) or "—") for k in
                                 ("gpu", "driver", "cuda", "torch", "megatron_core", "transformer_engine")]
    return ["| field | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]


def _harness_head(title: str, f: ResultsFile) -> list[str]:
    """Heading, workload and environment table that open a harness results section."""
    title += f" ({f.engine})" if f.engine else ""
    return ([f"### {title} — `{f.rel}`", "", f"Workload: {workload_label(f.data.get('workload'))}", ""]
            + _env_table(f) + [""])


def _training_section(f: ResultsFile) -> list[str]:
    lines = _harness_head("Training", f)
    lines += ["| variant | impl | modules | captured | replayed | step ms median [95% CI] | "
              "speedup vs eager [95% CI] | max loss Δ | status |",
              "|---|---|---|---|---|---:|---:|---:|---|"]
    for v in f.data["variants"]:
        mods = ", ".join(modules_of(v)) or "—"
        err = f" ({v['error_class']})" if v.get("error_class") else ""
        lines.append(f"| {v['name']} | {v.get('impl') or 'none'} | {mods} | {_yn(v.get('captured'))} | "
                     f"{_yn(v.get('replayed'))} | {_fmt_ci(v.get('step_ms'), 'median')} | "
                     f"{_fmt_ci(v.get('speedup_vs_eager'), 'point', prefix='x')} | "
                     f"{_fmt(v.get('loss_max_abs_delta'), 4)} | {variant_status(v, 'training')}{err} |")
    return lines + [""]


def _inference_section(f: ResultsFile) -> list[str]:
    lines = _harness_head("Inference", f)
    same_shape = any("tokens_match_same_shape_eager" in v for v in f.data["variants"])
    lines += ["| variant | inference scope | batch | decode step ms median [95% CI] | tokens/s | "
              "speedup vs eager [95% CI] | tokens match eager | "
              + ("tokens match eager at graph shapes | " if same_shape else "") + "status |",
              "|---|---|---:|---:|---:|---:|---|" + ("---|" if same_shape else "") + "---|"]
    for v in f.data["variants"]:
        err = f" ({v['error_class']})" if v.get("error_class") else ""
        same = f"{_yn(v.get('tokens_match_same_shape_eager'))} | " if same_shape else ""
        lines.append(f"| {v['name']} | {v.get('inference_scope') or 'none'} | {v.get('batch_size', '—')} | "
                     f"{_fmt_ci(v.get('decode_step_ms'), 'median', 3)} | {_fmt(v.get('tokens_per_s'), 0)} | "
                     f"{_fmt_ci(v.get('speedup_vs_eager'), 'point', prefix='x')} | "
                     f"{_yn(v.get('tokens_match_eager'))} | {same}{variant_status(v, 'inference')}{err} |")
    return lines + [""]


def _evals_section(f: ResultsFile) -> list[str]:
    d = f.data
    lines = [f"### Eval scoring — `{f.rel}`", "", f"- Date: {f.date}"]
    if d.get("evals"):
        lines.append(f"- Task set: `{d['evals']}`")
    if d.get("answers_file"):
        lines.append(f"- Answers scored: `{_shown(d['answers_file'])}`")
    gate = d.get("gate") if isinstance(d.get("gate"), dict) else {}
    if gate:
        verdict = "PASS" if gate.get("passed") else "FAIL"
        lines.append(f"- Gate: {verdict} — condition `{gate.get('condition')}` mean score "
                     f"{_fmt(gate.get('mean_score'), 3)} (threshold {_fmt(d.get('threshold'), 2)})")
    up = d.get("uplift") if isinstance(d.get("uplift"), dict) else {}
    if up.get("tasks_compared"):
        what = ("Uplift with vs without the skill" if isinstance(d.get("agent_run"), dict) else
                "Score difference between the answers labelled with_skill and without_skill (sample answers, "
                "not an agent: how far the rubric separates them)")
        lines.append(f"- {what}: mean {_fmt(up.get('mean'), 3)} over "
                     f"{up['tasks_compared']} tasks ({up.get('improved', 0)} higher, "
                     f"{up.get('regressed', 0)} lower)")
    conds = d.get("conditions") if isinstance(d.get("conditions"), dict) else {}
    lines.append("")
    executed = [a for a in d.get("answers") or [] if isinstance(a, dict) and isinstance(a.get("execution"), dict)]
    if executed:
        lines += ["GPU execution of the configs the answers suggest (`--execute`):", "",
                  "| task | condition | variant | captured | replayed | loss within tolerance | speedup vs eager | error |",
                  "|---|---|---|---|---|---|---:|---|"]
        for a in executed:
            x = a["execution"]
            lines.append(f"| `{a.get('id')}` | {a.get('condition')} | {x.get('variant') or '—'} | "
                         f"{_yn(x.get('captured'))} | {_yn(x.get('replayed'))} | {_yn(x.get('loss_ok'))} | "
                         f"{_fmt(x.get('speedup'), 2)} | {x.get('error_class') or '—'} |")
        lines.append("")
    if conds:
        lines += ["| condition | answers | mean score | pass rate | positive tasks | negative tasks | unsafe |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for name, c in conds.items():
            if not isinstance(c, dict):
                continue
            lines.append(f"| {name} | {c.get('answers', '—')} | {_fmt(c.get('mean_score'), 3)} | "
                         f"{_fmt(c.get('pass_rate'), 3)} | {_fmt(c.get('positive_mean'), 3)} | "
                         f"{_fmt(c.get('negative_mean'), 3)} | {c.get('unsafe_answers', '—')} |")
        lines.append("")
    return lines


def _tool_section(f: ResultsFile) -> list[str]:
    d = f.data
    summ = d["summary"]
    lines = [f"### Helper speed — {d['benchmark']} (`{f.rel}`)", "", f"- Date: {f.date}"]
    what = ", ".join(f"{k}={d[k]}" for k in ("answers", "repeats") if k in d)
    lines.append(f"- Median {_fmt(summ.get('median'), 4)} s (95% CI {_fmt(summ.get('ci95_low'), 4)}–"
                 f"{_fmt(summ.get('ci95_high'), 4)}, n={summ.get('n', '—')})" + (f" for {what}" if what else ""))
    if "budget_s" in d:
        verdict = "within" if d.get("within_budget") else "OVER"
        lines.append(f"- Budget {_fmt(d['budget_s'], 1)} s: {verdict} budget (max {_fmt(d.get('max_s'), 4)} s)")
    machine = d.get("machine")
    if isinstance(machine, dict) and machine:
        lines.append("- Machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()))
    return lines + [""]


def _agent_runs(evals: list[ResultsFile]) -> list[ResultsFile]:
    return [f for f in evals if isinstance(f.data.get("agent_run"), dict)]


def _attempts(evals: list[ResultsFile]) -> int | None:
    """Answers per task, condition and agent: the same in every report, else None (not stated)."""
    counts: set[int] = set()
    for f in evals:
        per: dict[tuple[str, str, str], int] = {}
        for a in f.data.get("answers") or []:
            if isinstance(a, dict):
                k = (str(a.get("id")), str(a.get("condition")), str(a.get("agent")))
                per[k] = per.get(k, 0) + 1
        counts |= set(per.values())
    return counts.pop() if len(counts) == 1 else None


def _metadata(meta: EvalMeta | None, files: list[ResultsFile]) -> list[str]:
    evals = [f for f in files if f.kind == "evals"]
    dates = sorted({f.date for f in (evals or files)})
    lines = ["## Evaluation Metadata", ""]
    if meta:
        lines.append(f"- Skill: `{meta.skill}`")
    if dates:
        lines.append(f"- Evaluation date: {dates[-1]}")
    if meta:
        lines += [f"- Evaluator version: `{meta.evaluator}`",
                  f"- Tasks: {meta.tasks} evaluation tasks ({meta.positive} positive, {meta.negative} negative)",
                  f"- Dataset digest: `{meta.dataset_digest}` ({meta.dataset})"]
    thresholds = {as_number(f.data.get("threshold")) for f in evals}
    if len(thresholds) == 1 and None not in thresholds:
        lines.append(f"- Pass threshold: {100 * thresholds.pop():g}% (rubric score per answer)")
    attempts = _attempts(evals)
    if attempts is not None:
        lines.append(f"- Attempts per task: {attempts}")
    if evals:
        # `skill-tools evals` has one mode: it scores (and `evals run` calls the agent CLI) in-process
        # on the invoking host, so this is a property of the evaluator, not a guess about the run.
        lines += ["- Environment: `local`", "",
                  "The scorer runs on the invoking host (local mode, no sandbox); configs executed on a GPU ran "
                  "on the GPUs listed under Execution and Provenance."]
    lines.append("")
    return lines


def _glance(files: list[ResultsFile]) -> list[str]:
    evals = [f for f in files if f.kind == "evals"]
    runs = _agent_runs(evals)
    lines = ["## Results at a Glance", ""]
    if not runs:
        lines += ["No agent run is recorded in `benchmarks/results/`, so this report has no baseline → skill "
                  "rows per agent. What was measured instead:", ""]
    harness = [f for f in files if f.kind in KINDS]
    for f in evals:
        gate = f.data.get("gate") if isinstance(f.data.get("gate"), dict) else {}
        agents = sorted({str(a.get("agent")) for a in f.data.get("answers") or [] if isinstance(a, dict)})
        who = (f"agent run `{f.data['agent_run'].get('agent') or 'unnamed'}`" if f in runs
               else f"answers in `{_shown(f.data.get('answers_file'))}` (labels {', '.join(agents) or 'none'}; "
                    "not an agent run)")
        executed = sum(1 for a in f.data.get("answers") or [] if isinstance(a, dict) and isinstance(a.get("execution"), dict))
        lines.append(f"- Deterministic rubric (`skill-tools evals score`) on {who}: gate "
                     f"{'PASS' if gate.get('passed') else 'FAIL'} (`{gate.get('condition')}` mean "
                     f"{_fmt(gate.get('mean_score'), 3)})" + (f"; {executed} answers' configs executed on a GPU"
                                                             if executed else "") + f" — `{f.rel}`")
    for kind in KINDS:
        group = [f for f in harness if f.kind == kind]
        if group:
            variants = [v for f in group for v in f.data["variants"]]
            ok = sum(1 for v in variants if variant_status(v, kind) == "success")
            lines.append(f"- {kind.capitalize()} harness A/Bs (eager vs CUDA graphs): {len(group)} results files, "
                         f"{len(variants)} variants, {ok} graphed variants captured, replayed and matched eager")
    lines.append("")
    for f in runs:
        lines += _agent_table(f)
    return lines


def _agent_table(f: ResultsFile) -> list[str]:
    """Baseline → skill per measure for one real agent run (the aggregator's v2/v3 cell format)."""
    conds = f.data.get("conditions") if isinstance(f.data.get("conditions"), dict) else {}
    w, wo = conds.get("with_skill") or {}, conds.get("without_skill") or {}
    agent = str(f.data["agent_run"].get("agent") or "agent")
    rows = [("Overall", "mean_score"), ("Correctness", "positive_mean"), ("Discoverability", "negative_mean"),
            ("Pass rate", "pass_rate")]
    out = ["| Measure | " + f"{agent} (Baseline → Skill Uplift) |", "|---|---:|"]
    for label, key in rows:
        a, b = as_number(wo.get(key)), as_number(w.get(key))
        if a is None or b is None:
            continue
        out.append(f"| {label} | {a * 100:.0f}% → {b * 100:.0f}% ({(b - a) * 100:+.0f} points) |")
    return out + ["", f"Source: `{f.rel}`; Discoverability is the rubric score on tasks where the skill must not "
                      "trigger.", ""]


def _shown(path: Any) -> str:
    """A path as the report may show it: absolute paths of another machine become their file name."""
    s = str(path or "not recorded")
    return PurePosixPath(s).name if s.startswith("/") else s


def render_benchmark(files: list[ResultsFile], meta: EvalMeta | None = None) -> str:
    """BENCHMARK.md from the results files; deterministic (no clock), so ``--check`` can diff it."""
    title = f"# Skill Benchmark: {meta.skill}" if meta else "# Skill Benchmark"
    lines = [title, "",
             "<!-- Generated by `skill-tools card sync` from benchmarks/results/*.json. Do not edit by hand. -->",
             ""]
    lines += _metadata(meta, files)
    if not files:
        lines += [_NO_RESULTS[0].upper() + _NO_RESULTS[1:] + ".", ""]
        return "\n".join(lines)
    lines += _glance(files)
    gpus = sorted({str(f.env.get("gpu")) for f in files if f.env.get("gpu")})
    dates = sorted({f.date for f in files})
    lines += ["## Execution and Provenance", "",
              f"- Results files: {len(files)} ({', '.join(sorted({f.kind for f in files}))})",
              f"- Dates: {', '.join(dates)}",
              f"- GPUs: {', '.join(gpus) or 'not recorded'}",
              "- Per-variant detail of every harness file, each naming its file: `benchmarks/measured.yaml`", ""]
    harness = [f for f in files if f.kind in KINDS]
    if harness:
        lines += ["## Harness results (eager vs CUDA graphs)", "",
                  "How to read: speedups compare steady-state steps after capture (the capture step is "
                  "excluded) against eager, as median ratios with bootstrap 95% confidence intervals. "
                  "A CI that spans 1.0 means no measurable change.", ""]
        for f in harness:
            lines += _training_section(f) if f.kind == "training" else _inference_section(f)
    evals = [f for f in files if f.kind == "evals"]
    if evals:
        lines += ["## Eval scoring (`skill-tools evals`)", ""]
        for f in evals:
            lines += _evals_section(f)
    prechecks = [f for f in files if f.kind == "precheck"]
    if prechecks:
        lines += ["## Precheck predictions vs measured A/B (`skill-tools precheck`)", "",
                  "| results file | eager step ms | kernel ms/step | host gaps | bound | predicts | measured | correct |",
                  "|---|---:|---:|---:|---:|---|---|---|"]
        for f in prechecks:
            d = f.data
            measured = (f"{d['measured_variant']} {_fmt(d.get('measured_speedup'), 2)}x"
                        if d.get("measured_variant") else "—")
            lines.append(f"| `{f.rel}` | {_fmt(d.get('eager_step_ms'), 2)} | {_fmt(d.get('kernel_ms_per_step'), 3)} | "
                         f"{_fmt(100 * d['host_gap_fraction'], 0)}% | {_fmt(d.get('speedup_bound'), 1)}x | "
                         f"{'pays off' if d['pays_off'] else 'no payoff'} | {measured} | "
                         f"{_yn(d.get('prediction_correct'))} |")
        lines.append("")
    diffs = [f for f in files if f.kind == "differential"]
    if diffs:
        lines += ["## Rule catalog vs megatron-core (differential)", "",
                  "| results file | megatron-core | configs | MCore rejected | disagreements | rules hit |",
                  "|---|---|---:|---:|---:|---:|"]
        for f in diffs:
            d = f.data
            lines.append(f"| `{f.rel}` | {d['mcore_version']} | {d['count']} | {d.get('oracle_errors', '—')} | "
                         f"{d['disagreements']} | {len(d.get('rules_hit') or {})} |")
        lines.append("")
    tools = [f for f in files if f.kind == "tool"]
    if tools:
        lines += ["## Helper speed", ""]
        for f in tools:
            lines += _tool_section(f)
    return "\n".join(lines).rstrip("\n") + "\n"
