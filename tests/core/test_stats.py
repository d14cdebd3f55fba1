"""Shared statistics: quantiles match numpy's definition, CIs cover and are deterministic."""

from __future__ import annotations

import random
import statistics

import pytest

from skill_tools.stats import bootstrap_ci, quantile, ratio_ci, summarize


def test_quantile_linear_interpolation():
    xs = [1.0, 2.0, 3.0, 4.0]
    assert quantile(xs, 0.0) == 1.0
    assert quantile(xs, 1.0) == 4.0
    assert quantile(xs, 0.5) == 2.5
    assert quantile(xs, 0.1) == pytest.approx(1.3)
    with pytest.raises(ValueError):
        quantile([], 0.5)


def test_bootstrap_ci_brackets_median_and_is_deterministic():
    rng = random.Random(1)
    xs = [10 + rng.gauss(0, 1) for _ in range(200)]
    lo, hi = bootstrap_ci(xs)
    assert lo < statistics.median(xs) < hi
    assert hi - lo < 0.6
    assert bootstrap_ci(xs) == (lo, hi)
    assert bootstrap_ci(xs, seed=2) != (lo, hi)


def test_ratio_ci_recovers_known_speedup():
    rng = random.Random(3)
    eager = [15.7 + rng.gauss(0, 0.3) for _ in range(100)]
    graph = [1.58 + rng.gauss(0, 0.02) for _ in range(100)]
    point, lo, hi = ratio_ci(eager, graph)
    assert lo <= point <= hi
    assert 9.5 < point < 10.4
    assert hi - lo < 0.5


def test_summarize_fields_and_empty():
    s = summarize([3.0, 1.0, 2.0])
    assert (s.n, s.median, s.mean) == (3, 2.0, 2.0)
    assert s.ci95_low <= s.median <= s.ci95_high
    assert set(s.to_dict()) == {"n", "median", "mean", "p10", "p90", "ci95_low", "ci95_high", "ci_method"}
    with pytest.raises(ValueError):
        summarize([])


def test_large_samples_switch_to_order_statistic_ci_and_say_so():
    rng = random.Random(5)
    xs = [100 + rng.gauss(0, 5) for _ in range(5000)]
    s = summarize(xs)
    assert s.ci_method == "order-statistic"
    assert s.ci95_low < s.median < s.ci95_high and s.ci95_high - s.ci95_low < 1.0
    assert summarize(xs[:500]).ci_method == "bootstrap"
    point, lo, hi = ratio_ci(xs, [x / 2 for x in xs])
    assert point == pytest.approx(2.0) and lo < point < hi
