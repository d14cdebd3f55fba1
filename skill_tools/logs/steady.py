"""Capture detection and steady-state statistics from a ParsedLog.

Capture placement (why the *next* iteration line carries it): TE-scoped graphs are captured at
the top of the loop after iteration ``cuda_graph_warmup_steps`` (megatron/training/training.py
core_v0.19.0 l.3784-3795; Bridge train.py v0.6.0 l.429-441); full-iteration graphs are captured
inside the forward-backward of iteration warmup+1 (full_cuda_graph.py l.207); local graphs are
built at the end of the first step's schedule (schedules.py l.861). In every case the capture
messages are printed before the iteration line whose elapsed time includes the capture, so the
parser attaches a "capture" mark to that line.

Steady state = iterations after the capture iteration (graph run) or after ``warmup``
iterations (eager run), minus intervals that contained a checkpoint save or an evaluation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skill_tools.logs.parse import MARK_CAPTURE, MARK_CHECKPOINT, MARK_EVAL, Iteration, ParsedLog
from skill_tools.stats import BOOTSTRAP_MAX_N, summarize

DEFAULT_EAGER_WARMUP = 3  # MCore's default cuda_graph_warmup_steps (transformer_config.py l.1023)


@dataclass
class Capture:
    detected: bool
    iteration: int | None = None
    seconds: float | None = None
    seconds_source: str | None = None  # "log" (printed by MCore) or "estimated" (capture - steady)
    impl: str | None = None
    graphable_layers: dict[int, int] = field(default_factory=dict)
    graph_memory_mib: dict[str, float] = field(default_factory=dict)
    inference_captures: int = 0
    inference_graphs: int | None = None
    inference_seconds: float | None = None
    deleted: bool = False
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "detected": self.detected,
            "iteration": self.iteration,
            "seconds": None if self.seconds is None else round(self.seconds, 3),
            "seconds_source": self.seconds_source,
            "impl": self.impl,
            "graphable_layers": {str(k): v for k, v in sorted(self.graphable_layers.items())},
            "graph_memory_mib": {k: round(v, 1) for k, v in self.graph_memory_mib.items()},
            "inference_captures": self.inference_captures,
            "inference_graphs": self.inference_graphs,
            "inference_seconds": self.inference_seconds,
            "deleted": self.deleted,
            "notes": self.notes,
        }
        return d


@dataclass
class SteadyState:
    n: int
    median_ms: float | None
    mean_ms: float | None = None
    p10_ms: float | None = None
    p90_ms: float | None = None
    ci95_ms: tuple[float, float] | None = None
    samples_ms: Any = field(default_factory=list, repr=False)  # list, or a numpy array for large samples
    used_range: tuple[int, int] | None = None
    excluded: dict[str, int] = field(default_factory=dict)
    tflops_per_gpu: float | None = None
    model_tflops_per_gpu: float | None = None
    samples_per_s: float | None = None
    reason: str = ""
    ci_method: str = "bootstrap"

    def to_dict(self) -> dict[str, Any]:
        r = lambda v: None if v is None else round(v, 3)  # noqa: E731
        return {
            "median_ms": r(self.median_ms),
            "mean_ms": r(self.mean_ms),
            "p10_ms": r(self.p10_ms),
            "p90_ms": r(self.p90_ms),
            "ci95_ms": None if self.ci95_ms is None else [r(self.ci95_ms[0]), r(self.ci95_ms[1])],
            "ci_method": self.ci_method if self.ci95_ms is not None else None,
            "iterations_used": self.n,
            "used_range": list(self.used_range) if self.used_range else None,
            "excluded": self.excluded,
            "tflops_per_gpu": r(self.tflops_per_gpu),
            "model_tflops_per_gpu": r(self.model_tflops_per_gpu),
            "samples_per_s": r(self.samples_per_s),
            "reason": self.reason,
        }


def detect_capture(log: ParsedLog, steady_median_ms: float | None = None) -> Capture:
    """Was a training graph captured, at which logged iteration, and how long did it take."""
    cap = Capture(detected=False)
    for ev in log.events:
        if ev.kind == "layers" and ev.rank is not None and ev.count is not None:
            cap.graphable_layers[ev.rank] = ev.count
        elif ev.kind == "deleted":
            cap.deleted = True
        elif ev.scope == "inference" and ev.kind == "capture_progress" and ev.count:
            cap.inference_graphs = ev.count
        elif ev.scope == "inference" and ev.kind == "capture_end":
            cap.inference_captures += 1
            cap.inference_seconds = ev.seconds
            if ev.reserved_mib is not None:
                cap.graph_memory_mib["inference_reserved"] = ev.reserved_mib
            if ev.allocated_mib is not None:
                cap.graph_memory_mib["inference_allocated"] = ev.allocated_mib
    training = [e for e in log.events if e.kind in ("capture_start", "capture_end") and e.scope == "training"]
    if not training:
        if cap.graphable_layers:
            cap.notes.append(
                "graphable layers were reported but no capture message followed: the run may have "
                "ended before cuda_graph_warmup_steps, or capture failed"
            )
        return cap
    cap.detected = True
    cap.impl = training[0].impl
    for ev in training:
        if ev.kind == "capture_end" and ev.seconds is not None and cap.seconds is None:
            cap.seconds, cap.seconds_source = ev.seconds, "log"
        if ev.kind == "capture_end" and ev.impl == "local":
            if ev.allocated_mib is not None:
                cap.graph_memory_mib["allocated"] = ev.allocated_mib
            if ev.reserved_mib is not None:
                cap.graph_memory_mib["reserved"] = ev.reserved_mib
    it = capture_iteration(log)
    if it is not None:
        cap.iteration = it.iteration
        if cap.seconds is None and it.elapsed_ms is not None and steady_median_ms is not None:
            cap.seconds = max(0.0, (it.elapsed_ms - steady_median_ms) / 1000.0)
            cap.seconds_source = "estimated"
    else:
        cap.notes.append("capture messages appear after the last iteration line")
    if not any(e.kind == "capture_end" for e in training):
        cap.notes.append("capture started but no 'capture done' message was seen")
    return cap


def capture_iteration(log: ParsedLog) -> Iteration | None:
    idx = np.flatnonzero(log.iterations.marked(MARK_CAPTURE))
    return log.iterations[int(idx[0])] if len(idx) else None


def _summary_np(xs: np.ndarray) -> tuple[float, float, float, float, tuple[float, float], str]:
    """median, mean, p10, p90, 95% CI, method for a large sample: the same statistics as
    skill_tools.stats.summarize (linear-interpolation quantiles, order-statistic median CI above
    BOOTSTRAP_MAX_N samples), computed with numpy instead of Python loops."""
    n = len(xs)
    ys = np.sort(xs)  # one copy; the quantiles below index it instead of copying again

    def quantile(q: float) -> float:  # numpy's default (linear) method on sorted data
        pos = q * (n - 1)
        i = math.floor(pos)
        j = min(i + 1, n - 1)
        return float(ys[i] + (ys[j] - ys[i]) * (pos - i))

    med, p10, p90 = quantile(0.5), quantile(0.10), quantile(0.90)
    half = 1.959964 * math.sqrt(n) / 2.0
    lo = float(ys[max(0, math.floor(n / 2.0 - half) - 1)])
    hi = float(ys[min(n - 1, math.ceil(n / 2.0 + half))])
    return med, float(ys.mean()), p10, p90, (lo, hi), "order-statistic"


def steady_state(log: ParsedLog, *, warmup: int | None = None, seed: int = 0) -> SteadyState:
    """Statistics over steady-state iterations (see module docstring for what is excluded)."""
    excluded: dict[str, int] = {}

    def drop(reason: str) -> None:
        excluded[reason] = excluded.get(reason, 0) + 1

    cap_it = capture_iteration(log)
    skip_to = warmup if warmup is not None else (None if cap_it else DEFAULT_EAGER_WARMUP)
    its = log.iterations
    if not len(its):
        return SteadyState(n=0, median_ms=None, excluded=excluded, reason="no per-iteration lines in the log")
    num = its.numbers("iteration")
    ms = its.attr("elapsed_ms")
    # Same exclusion order as a per-line reading: the first reason that applies counts.
    left = np.ones(len(num), dtype=bool)

    def take(mask: np.ndarray, reason: str) -> None:
        nonlocal left
        hit = mask & left
        k = int(hit.sum())
        if k:
            excluded[reason] = excluded.get(reason, 0) + k
        left &= ~hit

    take(~np.isfinite(ms), "no elapsed time")
    if cap_it is not None:
        take(num < cap_it.iteration, "before capture (eager warmup)")
        take(num == cap_it.iteration, "warmup and capture")
    if skip_to is not None:
        take(num <= skip_to, "warmup")
    take(its.marked(MARK_CHECKPOINT), "interval with checkpoint save")
    take(its.marked(MARK_EVAL), "interval with evaluation")
    take(its.marked(MARK_CAPTURE), "interval with a graph capture")
    used_idx: Any = np.flatnonzero(left)
    first_last = (int(num[used_idx[0]]), int(num[used_idx[-1]])) if len(used_idx) else (0, 0)
    if len(used_idx) and used_idx[-1] - used_idx[0] + 1 == len(used_idx):
        used_idx = slice(int(used_idx[0]), int(used_idx[-1]) + 1)  # contiguous: views, not copies
    if not left.any():
        reason = "no steady-state iterations left after excluding " + (", ".join(excluded) or "nothing")
        return SteadyState(n=0, median_ms=None, excluded=excluded, reason=reason)
    xs = ms[used_idx]
    if len(xs) > BOOTSTRAP_MAX_N:
        med, mean, p10, p90, ci, method = _summary_np(xs)
        n = len(xs)
    else:
        s = summarize(xs.tolist(), seed=seed)
        n, med, mean, p10, p90, ci, method = s.n, s.median, s.mean, s.p10, s.p90, (s.ci95_low, s.ci95_high), s.ci_method
    tf = its.attr("tflops_per_gpu")[used_idx]
    mtf = its.numbers("model_tflops_per_gpu")[used_idx]
    gbs = its.attr("global_batch_size")[used_idx]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # 1e-308 ms steps overflow, silently
        sps = gbs / (xs / 1000.0)
    ok = np.isfinite(sps) & (gbs > 0) & (xs > 0)

    def med_of(a: np.ndarray) -> float | None:
        a = a[np.isfinite(a)]
        return float(np.median(a)) if len(a) else None

    what = f"after the capture iteration {cap_it.iteration}" if cap_it else f"after {skip_to or 0} warmup iterations"
    return SteadyState(
        n=n,
        median_ms=med,
        mean_ms=mean,
        p10_ms=p10,
        p90_ms=p90,
        ci95_ms=ci,
        ci_method=method,
        samples_ms=xs.tolist() if len(xs) <= BOOTSTRAP_MAX_N else xs,
        used_range=first_last,
        excluded=excluded,
        tflops_per_gpu=med_of(tf),
        model_tflops_per_gpu=med_of(mtf),
        samples_per_s=med_of(sps[ok]) if ok.any() else None,
        reason=f"{n} logged iterations {what}",
    )


def memory_summary(log: ParsedLog) -> dict[str, Any]:
    """Peak memory over all ``[Rank N]`` reports (MiB), plus per-report count."""
    reps = log.memory
    if not reps:
        return {"reports": 0}

    def peak(attr: str) -> float | None:
        vals = [getattr(r, attr) for r in reps if getattr(r, attr) is not None]
        return round(max(vals), 1) if vals else None

    return {
        "reports": len(reps),
        "ranks": sorted({r.rank for r in reps}),
        "peak_allocated_mib": peak("allocated_mib"),
        "peak_max_allocated_mib": peak("max_allocated_mib"),
        "peak_reserved_mib": peak("reserved_mib"),
        "peak_max_reserved_mib": peak("max_reserved_mib"),
        "unit_in_log": sorted({r.unit for r in reps}),
    }
