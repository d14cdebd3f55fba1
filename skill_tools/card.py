"""Keep ``card.yaml`` and ``BENCHMARK.md`` in step with the measurements.

The numbers a reader sees in the skill card (``measured_results``, ``expected_metric_change``)
and in ``BENCHMARK.md`` are never typed by hand: they are generated from the harness results
(``benchmarks/results/*-training-*.json``, ``*-inference-*.json``) and the eval scoring reports
(``*-evals-*.json``). Every generated entry names the results file it came from, so a claim can
be traced to a run. ``--check`` regenerates in memory and reports what is stale, so CI fails
when someone edits a number by hand or adds a results file without re-syncing.

The rest of ``card.yaml`` is hand-written; it is read and written back with ruamel.yaml's
round-trip mode so comments and ordering survive.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools.errors import InputError
from skill_tools.harness.inference_runner import is_same_shape_control
from skill_tools.harness.results import LOSS_TOLERANCE, is_baseline
from skill_tools.rules.catalog import RULES_DOC
from skill_tools.rules.catalog import load as load_catalog
from skill_tools.rules.reference_doc import render as render_rules_doc

RESULTS_DIR = "benchmarks/results"
CARD = "card.yaml"
BENCHMARK = "BENCHMARK.md"
GENERATED_KEYS = ("measured_results", "expected_metric_change")
KINDS = ("training", "inference")
#: A graphed variant whose loss differs from eager by more than this is not loss-parity
#: (the harness's own tolerance, so the card and the results file judge alike).
LOSS_PARITY_TOL = LOSS_TOLERANCE
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})")


@dataclass
class ResultsFile:
    """One parsed results file: ``kind`` is training, inference or evals."""

    rel: str  # path relative to the skill root, as cited in the card
    kind: str
    data: dict[str, Any]

    @property
    def date(self) -> str:
        d = self.data.get("date")
        if isinstance(d, str) and d:
            return d
        m = _DATE_PREFIX.match(Path(self.rel).name)
        return m.group(1) if m else "undated"

    @property
    def env(self) -> dict[str, Any]:
        env = self.data.get("env")
        return env if isinstance(env, dict) else {}


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
# reading results files
# --------------------------------------------------------------------------------------------


def classify(rel: str, data: Any) -> str | None:
    """training | inference | evals | tool | differential | precheck, or None for a JSON file that is none of these.

    ``evals`` is an eval scoring report (``skill-tools evals``); ``tool`` is a speed benchmark
    of one of the helpers themselves (``{"benchmark": name, "summary": {...}}``);
    ``differential`` is a rule-catalog-vs-MCore run (``benchmarks/bench_differential.py``).
    """
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    if kind in KINDS:
        return kind
    if "gate" in data and "conditions" in data:
        return "evals"
    if isinstance(data.get("benchmark"), str) and isinstance(data.get("summary"), dict):
        return "tool"
    if "disagreements" in data and "mcore_version" in data and "count" in data:
        return "differential"
    if "host_gap_fraction" in data and "pays_off" in data:
        return "precheck"
    return None


def _require_variants(rel: str, data: dict[str, Any]) -> None:
    variants = data.get("variants")
    if not isinstance(variants, list) or not variants:
        raise InputError(rel, "has no 'variants' list", hint="a harness results file lists one entry per variant")
    for i, v in enumerate(variants):
        if not isinstance(v, dict) or not isinstance(v.get("name"), str):
            raise InputError(rel, f"variants[{i}] has no 'name'", hint="each variant needs name, captured, ...")


def load_results(root: Path) -> tuple[list[ResultsFile], list[dict[str, str]]]:
    """Every results file under ``benchmarks/results``, sorted by name; unknown JSON is skipped."""
    folder = root / RESULTS_DIR
    files: list[ResultsFile] = []
    skipped: list[dict[str, str]] = []
    if not folder.is_dir():
        return files, skipped
    for path in sorted(folder.glob("*.json")):
        rel = path.relative_to(root).as_posix()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(rel, f"is not valid JSON: {exc.msg}", line=exc.lineno) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(rel, f"cannot read: {exc}") from None
        kind = classify(rel, data)
        if kind is None:
            skipped.append({"path": rel, "reason": "neither a harness result (kind training/inference), "
                                                   "an eval scoring report nor a helper speed benchmark"})
            continue
        if kind in KINDS:
            _require_variants(rel, data)
        files.append(ResultsFile(rel, kind, data))
    return files, skipped


# --------------------------------------------------------------------------------------------
# small formatting helpers
# --------------------------------------------------------------------------------------------


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def _r(x: Any, nd: int = 3) -> float | None:
    v = _num(x)
    return round(v, nd) if v is not None else None


def _ci(obj: Any, point: str) -> tuple[float | None, float | None, float | None]:
    if not isinstance(obj, dict):
        return None, None, None
    return _num(obj.get(point)), _num(obj.get("ci95_low")), _num(obj.get("ci95_high"))


def _modules(v: dict[str, Any]) -> list[str]:
    mods = v.get("modules")
    if isinstance(mods, str):
        return [m for m in re.split(r"[,\s]+", mods) if m]
    if isinstance(mods, list):
        return [str(m) for m in mods]
    return []


def workload_label(workload: Any) -> str:
    """A one-line description of the workload a results file measured."""
    if isinstance(workload, str):
        return workload
    if not isinstance(workload, dict):
        return "unspecified"
    name = workload.get("name") or workload.get("model")
    parts = [str(name)] if name else []
    for k, v in workload.items():
        if k in ("name", "model") or isinstance(v, (dict, list)) or v is None:
            continue
        parts.append(f"{k}={v}")
    return ", ".join(parts[:12]) or "unspecified"


def env_label(env: dict[str, Any]) -> str:
    keys = ("gpu", "megatron_core", "transformer_engine", "torch", "cuda", "driver")
    names = {"megatron_core": "megatron-core", "transformer_engine": "TE", "cuda": "CUDA"}
    out = []
    for k in keys:
        if env.get(k):
            out.append(str(env[k]) if k == "gpu" else f"{names.get(k, k)} {env[k]}")
    return ", ".join(out) or "environment not recorded"


def _is_eager(v: dict[str, Any], kind: str) -> bool:
    if kind == "inference":
        return v.get("inference_scope") in (None, "none")
    return v.get("impl") in (None, "none") and not v.get("optimizer_graph")


def _status(v: dict[str, Any], kind: str) -> str:
    if _is_eager(v, kind):
        # Ungraphed runs other than the baseline are controls: inference eager padded to the graph
        # buckets, training eager with capturable Adam.
        control = is_same_shape_control(v) if kind == "inference" else not is_baseline(v)
        return "control" if control else "baseline"
    if v.get("error_class"):
        return "failed"
    if not v.get("captured"):
        return "not_captured"
    if kind == "training" and v.get("replayed") is False:
        return "not_replayed"
    if kind == "inference" and v.get("tokens_match_same_shape_eager") is False:
        return "tokens_differ"
    if kind == "inference" and v.get("tokens_match_eager") is False:
        # Equal to eager at the same padded shapes: bf16 rounding of another batch shape, not replay.
        return ("tokens_differ_from_unpadded_eager" if v.get("tokens_match_same_shape_eager")
                else "tokens_differ")
    if kind == "training":
        delta = _num(v.get("loss_max_abs_delta"))
        if delta is not None and delta > LOSS_PARITY_TOL:
            return "loss_mismatch"
    return "success"


_PEAK_GB_KEYS = ("peak_allocated_gb", "max_allocated_gb", "peak_memory_gb")
#: The training harness (skill_tools/harness/worker.py) reports MiB after capture.
_PEAK_MB_KEYS = ("max_allocated_after_capture_mb", "max_allocated_mb")


def _peak_gb(v: dict[str, Any]) -> float | None:
    """Peak allocated memory in GB if the variant reports it (harness keys vary by kind)."""
    for where in (v, v.get("memory")):
        if not isinstance(where, dict):
            continue
        for key in _PEAK_GB_KEYS:
            if _num(where.get(key)) is not None:
                return _num(where[key])
        for key in _PEAK_MB_KEYS:
            if _num(where.get(key)) is not None:
                return _num(where[key]) / 1024.0
    return None


def _training_label(v: dict[str, Any]) -> str:
    label = f"cuda_graph_impl={v.get('impl')}" + (f" modules={_modules(v)}" if _modules(v) else "")
    if v.get("optimizer_graph"):
        label += " optimizer_cuda_graph=True"
    elif v.get("capturable_optimizer"):
        label += " capturable Adam, step eager (control)"
    return label


# --------------------------------------------------------------------------------------------
# card.yaml sections
# --------------------------------------------------------------------------------------------


def measured_results(files: list[ResultsFile]) -> list[dict[str, Any]]:
    """One entry per measured variant, each naming its results file."""
    out: list[dict[str, Any]] = []
    for f in files:
        if f.kind not in KINDS:
            continue
        env = f.env
        for v in f.data["variants"]:
            entry: dict[str, Any] = {
                "results_file": f.rel,
                "kind": f.kind,
                "date": f.date,
                "gpu": env.get("gpu") or "unknown",
                "megatron_core": env.get("megatron_core") or "unknown",
                "transformer_engine": env.get("transformer_engine") or "unknown",
                "torch": env.get("torch") or "unknown",
                "workload": workload_label(f.data.get("workload")),
                "variant": v["name"],
            }
            if f.kind == "training":
                entry["impl"] = v.get("impl") or "none"
                entry["modules"] = _modules(v)
                if v.get("optimizer_graph"):
                    entry["optimizer_graph"] = True
                med, lo, hi = _ci(v.get("step_ms"), "median")
                entry["step_ms_median"] = _r(med)
                entry["step_ms_ci95"] = [_r(lo), _r(hi)]
                entry["loss_max_abs_delta"] = _r(v.get("loss_max_abs_delta"), 6)
                entry["replayed"] = v.get("replayed")
            else:
                entry["inference_scope"] = v.get("inference_scope") or "none"
                entry["batch_size"] = v.get("batch_size")
                med, lo, hi = _ci(v.get("decode_step_ms"), "median")
                entry["decode_step_ms_median"] = _r(med)
                entry["decode_step_ms_ci95"] = [_r(lo), _r(hi)]
                entry["tokens_per_s"] = _r(v.get("tokens_per_s"), 1)
                entry["tokens_match_eager"] = v.get("tokens_match_eager")
                if "tokens_match_same_shape_eager" in v:
                    entry["tokens_match_same_shape_eager"] = v["tokens_match_same_shape_eager"]
            entry["captured"] = v.get("captured")
            if not _is_eager(v, f.kind):
                p, lo, hi = _ci(v.get("speedup_vs_eager"), "point")
                entry["speedup_vs_eager"] = _r(p)
                entry["speedup_ci95"] = [_r(lo), _r(hi)]
            if _peak_gb(v) is not None:
                entry["peak_memory_gb"] = _r(_peak_gb(v), 2)
            if v.get("error_class"):
                entry["error_class"] = v["error_class"]
            entry["status"] = _status(v, f.kind)
            out.append(entry)
    return out


def _direction(lo: float | None, hi: float | None, point: float | None) -> str:
    """Direction of step time given a speedup CI (speedup > 1 means the step got shorter)."""
    if point is None:
        return "not_measured"
    if lo is not None and lo > 1.0:
        return "down"
    if hi is not None and hi < 1.0:
        return "up"
    return "neutral_ci_spans_1"


def _pct(speedup: float | None) -> str:
    if not speedup:
        return "n/a"
    return f"{(1.0 / speedup - 1.0) * 100.0:+.1f}%"


def expected_metric_change(files: list[ResultsFile]) -> list[dict[str, Any]]:
    """Per graphed variant: how step time (or decode step time), loss and memory moved vs eager."""
    out: list[dict[str, Any]] = []
    for f in files:
        if f.kind not in KINDS:
            continue
        env = f.env
        base_peak = {v.get("batch_size"): _peak_gb(v) for v in f.data["variants"] if _is_eager(v, f.kind)}
        conditions = f"{workload_label(f.data.get('workload'))}; {env_label(env)}"
        for v in f.data["variants"]:
            if _is_eager(v, f.kind):
                continue
            status = _status(v, f.kind)
            if f.kind == "training":
                what = _training_label(v)
                metric = "step_time"
            else:
                what = f"inference_cuda_graph_scope={v.get('inference_scope')} batch_size={v.get('batch_size')}"
                metric = "decode_step_time"
            p, lo, hi = _ci(v.get("speedup_vs_eager"), "point")
            if status in ("failed", "not_captured"):
                out.append({"metric": metric, "config": what, "direction": "not_measured",
                            "magnitude": f"{status}: {v.get('error_class') or 'no graph captured'}",
                            "conditions": conditions, "evidence": f.rel})
                continue
            mag = "n/a" if p is None else (
                f"{_pct(p)} step time (speedup x{p:.2f}, 95% CI {lo:.2f}-{hi:.2f})"
                if lo is not None and hi is not None else f"{_pct(p)} step time (speedup x{p:.2f})")
            out.append({"metric": metric, "config": what, "direction": _direction(lo, hi, p),
                        "magnitude": mag, "conditions": conditions, "evidence": f.rel})
            if f.kind == "training" and _num(v.get("loss_max_abs_delta")) is not None:
                d = _num(v["loss_max_abs_delta"])
                out.append({"metric": "loss", "config": what,
                            "direction": "unchanged" if d <= LOSS_PARITY_TOL else "differs",
                            "magnitude": f"max |loss - eager loss| = {d:.3g} (tolerance {LOSS_PARITY_TOL:g})",
                            "conditions": conditions, "evidence": f.rel})
            if f.kind == "inference" and v.get("tokens_match_eager") is not None:
                same = v.get("tokens_match_same_shape_eager")
                out.append({"metric": "greedy_tokens", "config": what,
                            "direction": "unchanged" if v["tokens_match_eager"] else "differs",
                            "magnitude": ("identical to eager" if v["tokens_match_eager"] else "differs from eager")
                            + {True: "; identical to eager at the same padded batch shape",
                               False: "; differs from eager at the same padded batch shape",
                               None: ""}[same],
                            "conditions": conditions, "evidence": f.rel})
            peak, base = _peak_gb(v), base_peak.get(v.get("batch_size") if f.kind == "inference" else None)
            if peak is not None and base is not None:
                out.append({"metric": "peak_memory", "config": what,
                            "direction": "up" if peak > base else ("down" if peak < base else "unchanged"),
                            "magnitude": f"{peak - base:+.2f} GB ({base:.2f} -> {peak:.2f} GB)",
                            "conditions": conditions, "evidence": f.rel})
    return out


_NO_RESULTS = ("no harness results yet: run `skill-tools bench --json` on a GPU, copy the results file to "
               "benchmarks/results/ and run `skill-tools card sync`")


def generated_sections(files: list[ResultsFile]) -> dict[str, Any]:
    measured = measured_results(files)
    expected = expected_metric_change(files)
    return {"measured_results": measured or _NO_RESULTS, "expected_metric_change": expected or _NO_RESULTS}


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
    for key in GENERATED_KEYS:
        data[key] = _to_ruamel(sections[key])
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# BENCHMARK.md
# --------------------------------------------------------------------------------------------


def _fmt(x: Any, nd: int = 2) -> str:
    v = _num(x)
    return "—" if v is None else f"{v:.{nd}f}"


def _fmt_ci(obj: Any, point: str, nd: int = 2, prefix: str = "") -> str:
    p, lo, hi = _ci(obj, point)
    if p is None:
        return "—"
    if lo is None or hi is None:
        return f"{prefix}{p:.{nd}f}"
    return f"{prefix}{p:.{nd}f} [{lo:.{nd}f}, {hi:.{nd}f}]"


def _yn(x: Any) -> str:
    return {True: "yes", False: "no"}.get(x, "—")


def _env_table(f: ResultsFile) -> list[str]:
    env = f.env
    rows = [("date", f.date)] + [(k, env.get(k) or "—") for k in
                                 ("gpu", "driver", "cuda", "torch", "megatron_core", "transformer_engine")]
    return ["| field | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]


def _harness_head(title: str, f: ResultsFile) -> list[str]:
    """Heading, workload and environment table that open a harness results section."""
    return ([f"### {title} — `{f.rel}`", "", f"Workload: {workload_label(f.data.get('workload'))}", ""]
            + _env_table(f) + [""])


def _training_section(f: ResultsFile) -> list[str]:
    lines = _harness_head("Training", f)
    lines += ["| variant | impl | modules | captured | replayed | step ms median [95% CI] | "
              "speedup vs eager [95% CI] | max loss Δ | status |",
              "|---|---|---|---|---|---:|---:|---:|---|"]
    for v in f.data["variants"]:
        mods = ", ".join(_modules(v)) or "—"
        err = f" ({v['error_class']})" if v.get("error_class") else ""
        lines.append(f"| {v['name']} | {v.get('impl') or 'none'} | {mods} | {_yn(v.get('captured'))} | "
                     f"{_yn(v.get('replayed'))} | {_fmt_ci(v.get('step_ms'), 'median')} | "
                     f"{_fmt_ci(v.get('speedup_vs_eager'), 'point', prefix='x')} | "
                     f"{_fmt(v.get('loss_max_abs_delta'), 4)} | {_status(v, 'training')}{err} |")
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
                     f"{_yn(v.get('tokens_match_eager'))} | {same}{_status(v, 'inference')}{err} |")
    return lines + [""]


def _evals_section(f: ResultsFile) -> list[str]:
    d = f.data
    lines = [f"### Eval scoring — `{f.rel}`", "", f"- Date: {f.date}"]
    if d.get("evals"):
        lines.append(f"- Task set: `{d['evals']}`")
    if d.get("answers_file"):
        lines.append(f"- Answers scored: `{d['answers_file']}`")
    gate = d.get("gate") if isinstance(d.get("gate"), dict) else {}
    if gate:
        verdict = "PASS" if gate.get("passed") else "FAIL"
        lines.append(f"- Gate: {verdict} — condition `{gate.get('condition')}` mean score "
                     f"{_fmt(gate.get('mean_score'), 3)} (threshold {_fmt(d.get('threshold'), 2)})")
    up = d.get("uplift") if isinstance(d.get("uplift"), dict) else {}
    if up.get("tasks_compared"):
        lines.append(f"- Uplift with vs without the skill: mean {_fmt(up.get('mean'), 3)} over "
                     f"{up['tasks_compared']} tasks ({up.get('improved', 0)} improved, "
                     f"{up.get('regressed', 0)} regressed)")
    conds = d.get("conditions") if isinstance(d.get("conditions"), dict) else {}
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


def render_benchmark(files: list[ResultsFile]) -> str:
    """BENCHMARK.md from the results files; deterministic (no clock), so ``--check`` can diff it."""
    lines = ["# Benchmark and evaluation report", "",
             "<!-- Generated by `skill-tools card sync` from benchmarks/results/*.json. Do not edit by hand. -->",
             ""]
    if not files:
        lines += [_NO_RESULTS[0].upper() + _NO_RESULTS[1:] + ".", ""]
        return "\n".join(lines)
    gpus = sorted({str(f.env.get("gpu")) for f in files if f.env.get("gpu")})
    dates = sorted({f.date for f in files})
    lines += ["## Summary", "",
              f"- Results files: {len(files)} ({', '.join(sorted({f.kind for f in files}))})",
              f"- Dates: {', '.join(dates)}",
              f"- GPUs: {', '.join(gpus) or 'not recorded'}", ""]
    harness = [f for f in files if f.kind in KINDS]
    if harness:
        lines += ["How to read: speedups compare steady-state steps after capture (the capture step is "
                  "excluded) against eager, as median ratios with bootstrap 95% confidence intervals. "
                  "A CI that spans 1.0 means no measurable change.", "",
                  "## Harness results (eager vs CUDA graphs)", ""]
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


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def sync(root: Path, *, check: bool = False) -> SyncReport:
    """Regenerate; write the files (or, with ``check``, only report which are stale)."""
    if not root.is_dir():
        raise InputError(str(root), "is not a directory", hint="pass the skill folder that holds card.yaml")
    card_path = root / CARD
    if not card_path.is_file():
        raise InputError(CARD, "missing", hint="card sync fills card.yaml's generated sections; create the card first")
    files, skipped = load_results(root)
    old_card = card_path.read_text(encoding="utf-8")
    new_card = render_card(old_card, generated_sections(files))
    bench_path = root / BENCHMARK
    old_bench = bench_path.read_text(encoding="utf-8") if bench_path.is_file() else None
    new_bench = render_benchmark(files)
    report = SyncReport(files, skipped, new_card, new_bench)
    rules_path = root / RULES_DOC
    old_rules = rules_path.read_text(encoding="utf-8") if rules_path.is_file() else None
    new_rules = render_rules_doc(load_catalog())
    for rel, old, new, path in ((CARD, old_card, new_card, card_path), (BENCHMARK, old_bench, new_bench, bench_path),
                                (RULES_DOC, old_rules, new_rules, rules_path)):
        if old == new:
            continue
        if check:
            report.stale.append(rel)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new, encoding="utf-8")
            report.written.append(rel)
    return report
