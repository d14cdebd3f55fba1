"""On a GPU: each capture path captures and replays on the tiny proxy, loss matches eager."""

from __future__ import annotations

import pytest

from skill_tools.harness.runner import run_variants
from skill_tools.harness.spec import named_variant

pytestmark = pytest.mark.gpu

COMMON = dict(size="tiny", steps=6, warmup_steps=3, settle_steps=1, profile_steps=2)


@pytest.mark.parametrize("workload,variant,stream", [
    ("dense", "full_iteration", "shared"),
    ("dense", "local", "default"),
    ("dense", "te:attn+mlp", "shared"),
    ("moe", "te:attn+moe_router+moe_preprocess", "shared"),
])
def test_variant_captures_replays_and_keeps_loss(tmp_path, workload, variant, stream):
    common = dict(COMMON, capture_stream=stream)
    specs = [named_variant("eager", workload=workload, **common), named_variant(variant, workload=workload, **common)]
    doc = run_variants(specs, trials=1, out_dir=tmp_path, timeout_s=240, progress=False)
    eager, graphed = doc["variants"]
    assert eager["error_class"] is None, eager["evidence"]
    assert graphed["error_class"] is None, graphed["evidence"]
    assert graphed["captured"] and graphed["graphs_count"] > 0
    assert graphed["replayed"] and graphed["replays_per_step"] >= 1
    assert graphed["loss_max_abs_delta"] is not None and graphed["loss_max_abs_delta"] <= 1e-3
    assert eager["graphs_count"] == 0 and not eager["replayed"]


def test_optimizer_graph_captures_and_replays(tmp_path):
    """The optimizer graph captures and replays; its loss drift vs eager is reported, not bounded
    here (2.3e-3 on the H200 run of 2026-12-02, unexplained, see the results file)."""
    common = dict(COMMON, capture_stream="shared")
    specs = [named_variant("eager", workload="dense", **common),
             named_variant("full_iteration+optimizer", workload="dense", **common)]
    graphed = run_variants(specs, trials=1, out_dir=tmp_path, timeout_s=240, progress=False)["variants"][1]
    assert graphed["error_class"] is None, graphed["evidence"]
    assert graphed["captured"] and graphed["graphs_count"] >= 2 and graphed["replayed"]
    assert graphed["loss_max_abs_delta"] is not None


def test_default_stream_capture_without_the_torch_fix_is_a_classified_failure(tmp_path):
    """With DDP set up on the default stream, torch builds lacking set_override_stale_capture_stream
    fail full-iteration capture; the harness must report that as a result, not crash."""
    import torch

    spec = named_variant("full_iteration", workload="dense", **dict(COMMON, capture_stream="default"))
    graphed = run_variants([spec], trials=1, out_dir=tmp_path, timeout_s=240, progress=False)["variants"][0]
    if hasattr(torch.autograd.graph, "set_override_stale_capture_stream"):
        assert graphed["error_class"] is None and graphed["captured"], graphed["evidence"]
    else:
        assert graphed["error_class"] == "stale-capture-stream", (graphed["error_class"], graphed["evidence"])
