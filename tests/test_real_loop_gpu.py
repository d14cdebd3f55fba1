"""On a GPU: Megatron-LM's own training loop (engine megatron-lm) captures and replays one graph
per implementation with the flags this skill prints; the results come from the run's own log.

One interleaved run per workload (session fixtures in tests/conftest.py); each variant is a
torchrun process of about 40 s, most of it Megatron-LM's start-up.
"""

from __future__ import annotations

import pytest
from conftest import assert_captured_and_replayed

pytestmark = pytest.mark.gpu


def _captured_and_replayed(run: dict, name: str, *, loss_parity: bool = True) -> dict:
    graphed = assert_captured_and_replayed(run, name, loss_parity=loss_parity)
    assert graphed["capture_iteration"] is not None  # read from Megatron-LM's own log
    return graphed


@pytest.mark.parametrize("name", ["full_iteration", "te:attn+mlp", "te:layer"])
def test_megatron_lm_graphs_match_eager_loss(mlm_dense_run, name):
    _captured_and_replayed(mlm_dense_run, name)


def test_megatron_lm_local_per_layer_graphs_capture_and_replay(mlm_dense_run):
    """Loss is not asserted: local per-layer graphs differed from eager by up to 3.5e-2 on the H200
    (benchmarks/results/2026-12-03-training-megatron-lm-h200-dense-tiny-layer.json)."""
    graphed = _captured_and_replayed(mlm_dense_run, "local", loss_parity=False)
    assert graphed["graphs_count"] >= 4  # one per layer at least


def test_megatron_lm_dropless_moe_te_scopes(mlm_moe_run):
    _captured_and_replayed(mlm_moe_run, "te:attn+moe_router+moe_preprocess")


def test_megatron_lm_results_are_read_by_skill_tools_logs(mlm_dense_run):
    """The engine's numbers are the log's: the log reader finds the capture iteration."""
    from pathlib import Path

    doc = mlm_dense_run["_doc"]
    full = mlm_dense_run["full_iteration"]
    assert full["capture_iteration"] == doc["workload"]["warmup_steps"] + 1
    assert all(Path(t["log"]).suffix == ".log" for t in full["trials"])
