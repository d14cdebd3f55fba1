"""On a GPU: each capture path captures and replays on the tiny proxy, loss matches eager."""

from __future__ import annotations

import pytest

from skill_tools.harness.runner import run_variants
from skill_tools.harness.spec import named_variant

pytestmark = pytest.mark.gpu

COMMON = dict(size="tiny", steps=6, warmup_steps=3, settle_steps=1, profile_steps=2)


@pytest.mark.parametrize("workload,variant,stream", [
    ("dense", "full_iteration", "default"),
    ("dense", "full_iteration", "shared"),
    ("dense", "full_iteration+optimizer", "default"),
    ("dense", "local", "default"),
    ("dense", "te:attn+mlp", "default"),
    ("dense", "te:attn+mlp", "shared"),
    ("moe", "te:attn+moe_router+moe_preprocess", "default"),
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
