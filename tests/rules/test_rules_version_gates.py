"""Rules whose version or front-end gate was corrected against the upstream source.

Each case names the source it follows (file, line, tag); the configs are read through the real
readers (Megatron-LM flags, Bridge YAML) so the front-end detection is the one users get.
"""

from __future__ import annotations

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.rules.engine import check


def rules(text: str, version: str, fmt: str | None = None, env: dict | None = None) -> dict:
    return {f.rule: f for f in check(read_text(text, fmt), era_for(version), env=env or {})}


DELAY_MLM = ("pretrain_gpt.py --cuda-graph-impl transformer_engine --cuda-graph-{key} attn --te-rng-tracker "
             "--delay-wgrad-compute --no-gradient-accumulation-fusion{extra}")


@pytest.mark.parametrize("version,overlap,fires", [
    ("0.16.1", True, False),   # no such asserts in arguments.py @core_v0.16.1
    ("0.17.0", True, True),    # arguments.py l.1507-1531 @core_v0.17.0
    ("0.17.0", False, False),  # ... only under `if args.overlap_grad_reduce`
    ("0.19.2", True, True),
    ("0.19.2", False, False),
])
def test_delay_wgrad_asserts_follow_megatron_lm(version, overlap, fires):
    key = "scope" if version < "0.18" else "modules"
    text = DELAY_MLM.format(key=key, extra=" --overlap-grad-reduce" if overlap else "")
    found = rules(text, version, "megatron_lm")
    assert ("delay-wgrad-grad-accum-fusion" in found) is fires, sorted(found)


def test_delay_wgrad_bridge_asserts_without_overlap_grad_reduce():
    """Bridge's CommOverlapConfig checks whenever delay_wgrad_compute is set (comm_overlap.py
    l.520-557 @067f987)."""
    text = ("model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n  use_te_rng_tracker: true\n"
            "  gradient_accumulation_fusion: false\ncomm_overlap:\n  delay_wgrad_compute: true\n")
    assert "delay-wgrad-grad-accum-fusion" in rules(text, "0.19.2")


@pytest.mark.parametrize("version,expected", [("0.18.0", "offload-impl"), ("0.19.2", None)])
def test_fine_grained_offload_with_local_graphs(version, expected):
    """0.18.0 refuses local outright (transformer_config.py l.2351-2356 @core_v0.18.0); 0.19
    accepts local with a partial MoE offload."""
    text = ("model:\n  cuda_graph_impl: local\n  cuda_graph_modules: [moe_router]\n  use_te_rng_tracker: true\n"
            "  num_moe_experts: 4\n  moe_token_dispatcher_type: alltoall\n"
            "  fine_grained_activation_offloading: true\n  offload_modules: [expert_fc1]\n")
    found = {r for r in rules(text, version) if r.startswith("offload")}
    assert found == ({expected} if expected else set())


@pytest.mark.parametrize("version,fires", [("0.16.1", False), ("0.17.0", True), ("0.19.2", True)])
def test_inference_num_cuda_graphs_assert_is_new_in_017(version, fires):
    text = "model:\n  cuda_graph_impl: local\n  use_te_rng_tracker: true\ninference:\n  num_cuda_graphs: 0\n"
    assert ("inference-num-cuda-graphs" in rules(text, version)) is fires


def test_gtp_with_graphs_needs_node_priority_env():
    """arguments.py l.1474-1504 @core_v0.19.0."""
    text = ("pretrain_gpt.py --tensor-model-parallel-size 2 --tensor-parallel-num-weight-shards 2 "
            "--cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker")
    assert "gtp-graphs-node-priority" in rules(text, "0.19.2", "megatron_lm")
    assert "gtp-graphs-node-priority" not in rules(text, "0.19.2", "megatron_lm", env={"CUDA_GRAPHS_USE_NODE_PRIORITY": "1"})
    plain = text.replace(" --tensor-parallel-num-weight-shards 2", "")
    assert "gtp-graphs-node-priority" not in rules(plain, "0.19.2", "megatron_lm")


def test_megatron_fsdp_v2_refuses_graphs():
    """Bridge config.py l.1181-1188 @067f987."""
    base = "ddp:\n  use_megatron_fsdp: true\n  megatron_fsdp_version: {v}\n"
    graphs = "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n  use_te_rng_tracker: true\n"
    assert rules(graphs + base.format(v=2), "0.19.2")["fsdp-v2-cuda-graphs"].fix == {"ddp.megatron_fsdp_version": 1}
    assert "fsdp-v2-cuda-graphs" not in rules(graphs + base.format(v=1), "0.19.2")
    optimizer = base.format(v=2) + "optimizer:\n  optimizer_cuda_graph: true\n"
    assert "fsdp-v2-cuda-graphs" in rules(optimizer, "0.19.2")


@pytest.mark.parametrize("flags,problem", [
    ("--cuda_graph_impl local --cuda_graph_scope full_iteration,attn", "combined with other scopes"),
    ("--cuda_graph_impl transformer_engine --cuda_graph_scope full_iteration", "transformer_engine"),
    ("--cuda_graph_impl local --cuda_graph_scope full_iteration", None),
    ("--cuda_graph_impl transformer_engine --cuda_graph_scope attn,mlp", None),
])
def test_run_script_full_iteration_scope(flags, problem):
    """Bridge's perf harness raises before training (utils/overrides.py l.137-142 @067f987), even
    where MCore 0.16 would accept local + ['full_iteration', 'attn']."""
    text = f"python scripts/performance/run_script.py -m llama -mr llama3_8b -g h100 {flags}"
    for version in ("0.16.1", "0.19.2"):
        found = rules(text, version, "run_script").get("run-script-full-iteration-scope")
        assert (found is not None) is (problem is not None), (version, flags)
        if problem:
            assert problem in found.message
