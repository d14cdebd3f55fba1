"""Predict from an eager profile whether CUDA graphs will pay off, and check the prediction.

The skill's rule "first confirm a profile shows launch gaps" as arithmetic: a graph removes
host launch overhead, not kernel time, so the kernel time per step is the floor a graphed step
can approach. ``host_gap_fraction = 1 - kernel_ms / step_ms`` of eager steps; the speedup is
bounded by ``step_ms / kernel_ms``. Graphs are predicted to pay off when the gap fraction is at
least :data:`GAP_THRESHOLD` (then the bound is at least 1 / (1 - threshold)).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

GAP_THRESHOLD = 0.30
#: A measured speedup at least this large counts as "paid off" when checking a prediction.
PAYOFF_SPEEDUP = 1.15


@dataclass
class Prediction:
    eager_step_ms: float
    kernel_ms_per_step: float
    host_gap_fraction: float
    speedup_bound: float
    pays_off: bool
    reason: str
    measured_variant: str | None = None
    measured_speedup: float | None = None
    prediction_correct: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def predict(eager_step_ms: float, kernel_ms_per_step: float) -> Prediction:
    busy = min(1.0, kernel_ms_per_step / eager_step_ms)
    gap = 1.0 - busy
    bound = eager_step_ms / kernel_ms_per_step if kernel_ms_per_step > 0 else float("inf")
    pays = gap >= GAP_THRESHOLD
    reason = (f"eager steps are {100 * gap:.0f}% host gaps (GPU busy {100 * busy:.0f}%): graphs can cut the step "
              f"up to {bound:.1f}x" if pays else
              f"eager steps are only {100 * gap:.0f}% host gaps: the GPU is already busy, graphs can gain at most "
              f"{bound:.2f}x; look at kernels, not launches")
    return Prediction(round(eager_step_ms, 4), round(kernel_ms_per_step, 4), round(gap, 4), round(bound, 3), pays, reason)


def predict_from_results(doc: dict[str, Any]) -> Prediction:
    """Prediction from the eager variant of a results file, checked against its best graph variant."""
    from skill_tools.errors import InputError
    from skill_tools.harness.results import is_baseline

    variants = doc.get("variants", [])
    eager = next((v for v in variants if is_baseline(v)), None)
    if not eager or not eager.get("step_ms") or not eager.get("kernel_ms_per_step"):
        raise InputError("results", "no profiled eager variant (step_ms and kernel_ms_per_step)",
                         hint="run skill-tools bench or precheck on a GPU to produce one")
    pred = predict(eager["step_ms"]["median"], eager["kernel_ms_per_step"])
    graphed = [v for v in variants if v is not eager and v.get("speedup_vs_eager") and v.get("replayed")]
    if graphed:
        best = max(graphed, key=lambda v: v["speedup_vs_eager"]["point"])
        pred.measured_variant = best["name"]
        pred.measured_speedup = best["speedup_vs_eager"]["point"]
        pred.prediction_correct = pred.pays_off == (pred.measured_speedup >= PAYOFF_SPEEDUP)
    return pred
