"""Read the measured results (``benchmarks/results/*.json``) and derive the card's numbers from them.

Every derived entry names the results file it came from, so a claim can be traced to a run. A
results file may name the ``engine`` that ran it (top level or in ``workload``); entries carry it
through, so a new engine needs a results file, not code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_tools.errors import InputError
from skill_tools.harness.inference.results import is_same_shape_control
from skill_tools.harness.results import LOSS_TOLERANCE, is_baseline
from skill_tools.numbers import as_number

RESULTS_DIR = "benchmarks/results"
KINDS = ("training", "inference")
#: A graphed variant whose loss differs from eager by more than this is not loss-parity
#: (the harness's own tolerance, so the card and the results file judge alike).
LOSS_PARITY_TOL = LOSS_TOLERANCE
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})")


#: Training results of the harness's own loop from MCore parts: a capture micro-benchmark, kept
#: in benchmarks/measured.yaml under this engine name but never summarised in card.yaml.


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
    def engine(self) -> str | None:
        """The entry point that ran it (e.g. ``megatron-lm``), when the results file names one."""
        w = self.data.get("workload")
        engine = self.data.get("engine") or (w.get("engine") if isinstance(w, dict) else None)
        if not engine and self.kind == "training":
            return "proxy"  # written before engines existed: the harness's own loop (engine proxy)
        return str(engine) if engine else None

    @property
    def user_evidence(self) -> bool:
        """Whether the run went through an entry point users run (not the proxy micro-benchmark)."""
        from skill_tools.harness.engines import REGISTRY

        engine = REGISTRY.get(self.engine or "")
        return engine.runs_user_loop if engine is not None else True  # inference, evals: no proxy there

    @property
    def env(self) -> dict[str, Any]:
        env = self.data.get("env")
        return env if isinstance(env, dict) else {}



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
        if kind in KINDS and data.get("status") in ("unavailable", "failed") and not data.get("variants"):
            # a workload that could not be built, or whose eager baseline failed: evidence, no numbers
            why = (data.get("unavailable") or [f.get("error_class") for f in data.get("failures") or []] or ["?"])[0]
            skipped.append({"path": rel, "reason": f"{data['status']}, nothing measured: {why}"})
            continue
        if kind in KINDS:
            _require_variants(rel, data)
        files.append(ResultsFile(rel, kind, data))
    return files, skipped


# --------------------------------------------------------------------------------------------
# small formatting helpers
# --------------------------------------------------------------------------------------------


def rounded(x: Any, nd: int = 3) -> float | None:
    v = as_number(x)
    return round(v, nd) if v is not None else None


def ci_of(obj: Any, point: str) -> tuple[float | None, float | None, float | None]:
    if not isinstance(obj, dict):
        return None, None, None
    return as_number(obj.get(point)), as_number(obj.get("ci95_low")), as_number(obj.get("ci95_high"))


def modules_of(v: dict[str, Any]) -> list[str]:
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


def is_eager(v: dict[str, Any], kind: str) -> bool:
    if kind == "inference":
        return v.get("inference_scope") in (None, "none")
    return v.get("impl") in (None, "none") and not v.get("optimizer_graph")


def variant_status(v: dict[str, Any], kind: str) -> str:
    if is_eager(v, kind):
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
        delta = as_number(v.get("loss_max_abs_delta"))
        if delta is not None and delta > LOSS_PARITY_TOL:
            return "loss_mismatch"
    return "success"


_PEAK_GB_KEYS = ("peak_allocated_gb", "max_allocated_gb", "peak_memory_gb")
#: The training harness (skill_tools/harness/engines/proxy/worker.py) reports MiB after capture.
_PEAK_MB_KEYS = ("max_allocated_after_capture_mb", "max_allocated_mb")


def peak_gb(v: dict[str, Any]) -> float | None:
    """Peak allocated memory in GB if the variant reports it (harness keys vary by kind)."""
    for where in (v, v.get("memory")):
        if not isinstance(where, dict):
            continue
        for key in _PEAK_GB_KEYS:
            if as_number(where.get(key)) is not None:
                return as_number(where[key])
        for key in _PEAK_MB_KEYS:
            if as_number(where.get(key)) is not None:
                return as_number(where[key]) / 1024.0
    return None


def training_label(v: dict[str, Any]) -> str:
    label = f"cuda_graph_impl={v.get('impl')}" + (f" modules={modules_of(v)}" if modules_of(v) else "")
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
            if f.engine:
                entry["engine"] = f.engine
            if f.kind == "training":
                entry["impl"] = v.get("impl") or "none"
                entry["modules"] = modules_of(v)
                if v.get("optimizer_graph"):
                    entry["optimizer_graph"] = True
                med, lo, hi = ci_of(v.get("step_ms"), "median")
                entry["step_ms_median"] = rounded(med)
                entry["step_ms_ci95"] = [rounded(lo), rounded(hi)]
                entry["loss_max_abs_delta"] = rounded(v.get("loss_max_abs_delta"), 6)
                entry["replayed"] = v.get("replayed")
            else:
                entry["inference_scope"] = v.get("inference_scope") or "none"
                entry["batch_size"] = v.get("batch_size")
                med, lo, hi = ci_of(v.get("decode_step_ms"), "median")
                entry["decode_step_ms_median"] = rounded(med)
                entry["decode_step_ms_ci95"] = [rounded(lo), rounded(hi)]
                entry["tokens_per_s"] = rounded(v.get("tokens_per_s"), 1)
                entry["tokens_match_eager"] = v.get("tokens_match_eager")
                if "tokens_match_same_shape_eager" in v:
                    entry["tokens_match_same_shape_eager"] = v["tokens_match_same_shape_eager"]
            entry["captured"] = v.get("captured")
            if not is_eager(v, f.kind):
                p, lo, hi = ci_of(v.get("speedup_vs_eager"), "point")
                entry["speedup_vs_eager"] = rounded(p)
                entry["speedup_ci95"] = [rounded(lo), rounded(hi)]
            if peak_gb(v) is not None:
                entry["peak_memory_gb"] = rounded(peak_gb(v), 2)
            if v.get("error_class"):
                entry["error_class"] = v["error_class"]
            entry["status"] = variant_status(v, f.kind)
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
        base_peak = {v.get("batch_size"): peak_gb(v) for v in f.data["variants"] if is_eager(v, f.kind)}
        conditions = f"{workload_label(f.data.get('workload'))}; {env_label(env)}"
        for v in f.data["variants"]:
            if is_eager(v, f.kind):
                continue
            status = variant_status(v, f.kind)
            if f.kind == "training":
                what = training_label(v)
                metric = "step_time"
            else:
                what = f"inference_cuda_graph_scope={v.get('inference_scope')} batch_size={v.get('batch_size')}"
                metric = "decode_step_time"
            p, lo, hi = ci_of(v.get("speedup_vs_eager"), "point")
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
            if f.kind == "training" and as_number(v.get("loss_max_abs_delta")) is not None:
                d = as_number(v["loss_max_abs_delta"])
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
            peak, base = peak_gb(v), base_peak.get(v.get("batch_size") if f.kind == "inference" else None)
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
