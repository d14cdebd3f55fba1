"""On a GPU: Megatron-LM's own training loop (engine megatron-lm) captures and replays one graph
per implementation with the flags this skill prints; the results come from the run's own log.

One interleaved run per workload (session fixtures in tests/conftest.py); each variant is a
torchrun process of about 40 s, most of it Megatron-LM's start-up.
"""

from __future__ import annotations

import pytest

from skill_tools.harness.results import LOSS_TOLERANCE

pytestmark = pytest.mark.gpu


def _captured_and_replayed(run: dict, name: str) -> dict:
    eager, graphed = run["eager"], run[name]
    assert eager["error_class"] is None, eager["evidence"]
    assert graphed["error_class"] is None, (graphed["error_class"], graphed["evidence"])
    assert graphed["captured"] and graphed["graphs_count"] > 0
    assert graphed["replayed"] and graphed["replays_per_step"] >= 1
    assert graphed["capture_iteration"] is not None
    assert eager["graphs_count"] == 0 and not eager["replayed"]
    return graphed


@pytest.mark.parametrize("name", ["full_iteration", "te:attn+mlp", "te:layer"])
def test_megatron_lm_graphs_match_eager_loss(mlm_dense_run, name):
    graphed = _captured_and_replayed(mlm_dense_run, name)
    assert graphed["loss_max_abs_delta"] is not None and graphed["loss_max_abs_delta"] <= LOSS_TOLERANCE


def test_megatron_lm_local_per_layer_graphs_capture_and_replay(mlm_dense_run):
    """Loss is not asserted: local per-layer graphs differed from eager by up to 3.5e-2 on the H200
    (benchmarks/results/2026-12-03-training-megatron-lm-h200-dense-tiny-layer.json)."""
    graphed = _captured_and_replayed(mlm_dense_run, "local")
    assert graphed["graphs_count"] >= 4  # one per layer at least


def test_megatron_lm_dropless_moe_te_scopes(mlm_moe_run):
    graphed = _captured_and_replayed(mlm_moe_run, "te:attn+moe_router+moe_preprocess")
    assert graphed["loss_max_abs_delta"] is not None and graphed["loss_max_abs_delta"] <= LOSS_TOLERANCE


def test_megatron_lm_results_are_read_by_skill_tools_logs(mlm_dense_run):
    """The engine's numbers are the log's: the log reader finds the capture iteration."""
    from pathlib import Path

    doc = mlm_dense_run["_doc"]
    full = mlm_dense_run["full_iteration"]
    assert full["capture_iteration"] == doc["workload"]["warmup_steps"] + 1
    assert all(Path(t["log"]).suffix == ".log" for t in full["trials"])
