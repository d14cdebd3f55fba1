"""BENCHMARK.md reports the precheck prediction and the catalog-vs-MCore differential, not only harness runs."""

from __future__ import annotations

from skill_tools.package.card import ResultsFile, classify, render_benchmark


def test_precheck_and_differential_files_are_classified_and_rendered():
    pre = {"eager_step_ms": 26.1465, "kernel_ms_per_step": 1.4978, "host_gap_fraction": 0.9427,
           "speedup_bound": 17.457, "pays_off": True, "measured_variant": "local", "measured_speedup": 2.73,
           "prediction_correct": True}
    diff = {"era": "current", "mcore_version": "0.19.2", "count": 5000, "oracle_errors": 3850,
            "disagreements": 0, "rules_hit": {"a": 1, "b": 2}, "date": "2026-12-02"}
    assert classify("p.json", pre) == "precheck" and classify("d.json", diff) == "differential"
    assert classify("x.json", {"something": 1}) is None
    text = render_benchmark([ResultsFile("benchmarks/results/p.json", "precheck", pre),
                             ResultsFile("benchmarks/results/d.json", "differential", diff)])
    assert "| `benchmarks/results/p.json` | 26.15 | 1.498 | 94% | 17.5x | pays off | local 2.73x | yes |" in text
    assert "| `benchmarks/results/d.json` | 0.19.2 | 5000 | 3850 | 0 | 2 |" in text
