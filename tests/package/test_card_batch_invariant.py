"""Runs under batch_invariant_mode are parity checks (fixed-reduction kernels, eager at natural
shapes): BENCHMARK.md lists them, the size-bounded card.yaml takes no speed or parity line from them."""

from __future__ import annotations

from pathlib import Path

from skill_tools.package.card_compact import compact_expected, compact_measured
from skill_tools.package.card_results import load_results

REPO = Path(__file__).resolve().parents[2]


def test_batch_invariant_runs_stay_out_of_the_card_but_not_out_of_the_results():
    files, _ = load_results(REPO)
    invariant = [f for f in files if f.kind == "inference" and any(v.get("batch_invariant") for v in f.data["variants"])]
    assert invariant, "the committed batch-invariant results are read"
    plain = [f for f in files if f not in invariant]
    assert compact_expected(files) == compact_expected(plain)
    assert compact_measured(files) == compact_measured(plain)
    assert {f.rel for f in invariant} <= {f.rel for f in files}
