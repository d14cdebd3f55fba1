"""MCore ``local`` per-layer graphs and the dropout RNG, from the committed H200 runs.

``benchmarks/run-local-rng-check.sh`` ran Megatron-LM's own loop (megatron-core 0.19.2, tiny GPT,
28 iterations) three times; its logs and sidecars are committed in
``benchmarks/results/2026-12-03-training-megatron-lm-h200-local-rng-check/``. These tests derive the
finding again from those files: with dropout off, local per-layer graphs (8 captures, replayed
every step) give exactly eager's loss at every iteration, so the 3.5e-2 drift of the default-dropout
run (``2026-12-03-training-megatron-lm-h200-dense-tiny-layer.json``) is the dropout RNG stream.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from skill_tools.logs.parse import parse_path

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "2026-12-03-training-megatron-lm-h200-local-rng-check"


def _losses(name: str) -> list[float]:
    log = parse_path(RUN / "logs" / f"{name}.log.gz")
    its = sorted({i.iteration: i for i in log.iterations}.values(), key=lambda i: i.iteration)
    return [i.losses["lm loss"] for i in its]


def _sidecar(name: str) -> dict:
    return json.loads((RUN / "raw" / f"{name}.sidecar.json").read_text())


def test_local_graphs_without_dropout_match_eager_exactly():
    eager, local = _losses("eager-nodrop"), _losses("local-nodrop")
    assert len(eager) == len(local) == 28
    assert eager == local
    side = _sidecar("local-nodrop")
    assert side["captures"] == 8 and side["replays"] >= 8 * 20  # graphs were captured and replayed


def test_the_runs_are_what_they_claim():
    """The no-dropout runs really had dropout 0, and only the local run had graphs."""
    assert _sidecar("eager-nodrop")["captures"] == 0
    for name in ("eager-nodrop", "local-nodrop"):
        with gzip.open(RUN / "logs" / f"{name}.log.gz", "rt") as fh:
            text = fh.read()
        assert "attention_dropout ............................... 0.0" in text
        assert "hidden_dropout .................................. 0.0" in text
        assert ("cuda_graph_impl ................................. local" in text) == (name == "local-nodrop")


def test_committed_summary_follows_from_the_logs():
    summary = json.loads((RUN / "summary.json").read_text())
    pair = summary["eager-nodrop vs local-nodrop"]
    assert pair["max_abs_delta"] == 0.0 and pair["first_differing_iteration"] is None
    eager, local = _losses("eager-nodrop"), _losses("local-nodrop")
    assert pair["iterations"] == min(len(eager), len(local))
