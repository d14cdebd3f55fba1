"""Shared statistics for step times: robust summaries and bootstrap confidence intervals.

Used by the log parser and the GPU harness so that both report the same numbers the same way.
Pure Python (no numpy) so that it costs nothing to import.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from statistics import fmean, median
from typing import Callable, Sequence


def quantile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (numpy's default), q in [0, 1]."""
    if not values:
        raise ValueError("quantile of no values")
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo = math.floor(pos)
    hi = math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


#: Above this many samples a pure-Python bootstrap (2000 resamples) takes seconds; the median's
#: distribution-free order-statistic CI is used instead, and ``Summary.ci_method`` says so.
BOOTSTRAP_MAX_N = 1000


def median_ci_order_statistic(values: Sequence[float]) -> tuple[float, float]:
    """95% CI of the median from order statistics: ranks n/2 -/+ 1.96*sqrt(n)/2 (normal
    approximation to the binomial). Distribution-free and O(n log n)."""
    ys = sorted(values)
    n = len(ys)
    half = 1.959964 * math.sqrt(n) / 2.0
    return ys[max(0, math.floor(n / 2.0 - half) - 1)], ys[min(n - 1, math.ceil(n / 2.0 + half))]


def bootstrap_ci(
    values: Sequence[float],
    stat: Callable[[Sequence[float]], float] = median,
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap CI of ``stat`` (default: the median). Deterministic for a seed."""
    if len(values) < 2:
        v = stat(values) if values else float("nan")
        return (v, v)
    rng = random.Random(seed)
    n = len(values)
    boots = sorted(stat([values[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    alpha = (1 - level) / 2
    return quantile(boots, alpha), quantile(boots, 1 - alpha)


def ratio_ci(
    baseline: Sequence[float],
    variant: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Speedup = median(baseline) / median(variant) with a bootstrap CI (independent resamples).

    Above ``BOOTSTRAP_MAX_N`` samples the CI is the conservative ratio of the two medians'
    order-statistic CIs."""
    point = median(baseline) / median(variant)
    if len(baseline) < 2 or len(variant) < 2:
        return point, point, point
    if max(len(baseline), len(variant)) > BOOTSTRAP_MAX_N:
        (blo, bhi), (vlo, vhi) = median_ci_order_statistic(baseline), median_ci_order_statistic(variant)
        return point, blo / vhi, bhi / vlo
    rng = random.Random(seed)
    nb, nv = len(baseline), len(variant)
    boots = sorted(
        median([baseline[rng.randrange(nb)] for _ in range(nb)])
        / median([variant[rng.randrange(nv)] for _ in range(nv)])
        for _ in range(resamples)
    )
    alpha = (1 - level) / 2
    return point, quantile(boots, alpha), quantile(boots, 1 - alpha)


@dataclass(frozen=True)
class Summary:
    """Steady-state summary of a sample (times in the caller's unit)."""

    n: int
    median: float
    mean: float
    p10: float
    p90: float
    ci95_low: float
    ci95_high: float
    ci_method: str = "bootstrap"

    def to_dict(self) -> dict[str, float | str]:
        return asdict(self)


def summarize(values: Sequence[float], *, seed: int = 0) -> Summary:
    if not values:
        raise ValueError("cannot summarize an empty sample")
    if len(values) > BOOTSTRAP_MAX_N:
        (lo, hi), method = median_ci_order_statistic(values), "order-statistic"
    else:
        (lo, hi), method = bootstrap_ci(values, seed=seed), "bootstrap"
    return Summary(
        n=len(values),
        median=median(values),
        mean=fmean(values),
        p10=quantile(values, 0.10),
        p90=quantile(values, 0.90),
        ci95_low=lo,
        ci95_high=hi,
        ci_method=method,
    )
