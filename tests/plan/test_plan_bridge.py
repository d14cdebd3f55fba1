"""Engine bridge's overrides for a plan, judged by Bridge itself: ``process_config_with_overrides``
(the path of Bridge's ``run_recipe.py``) accepts every override and the provider ends up with the
plan's run shape. Skipped where megatron.bridge does not import."""

from __future__ import annotations

import pytest

from skill_tools.config.era import resolve_era
from skill_tools.harness.engines.bridge import cli
from skill_tools.harness.spec import VariantSpec
from skill_tools.plan import build
from skill_tools.plan.measure import model_record, workload_of


@pytest.fixture(scope="module")
def bridge():
    from skill_tools.rules.bridge_oracle import availability

    ok, why = availability()
    if not ok:
        pytest.skip(f"Bridge: {why}")


@pytest.mark.parametrize("path", ["examples/bridge_qwen3_30b_a3b.yaml", "examples/hydra_qwen15_moe_shared_expert.txt",
                                  "examples/megatron_lm_llama3_8b.sh"])
def test_bridge_applies_the_plans_overrides_to_its_provider(bridge, repo, path):
    import torch
    from megatron.bridge.training.utils.omegaconf_utils import process_config_with_overrides

    from skill_tools.config.shape_render import activation_callable
    from skill_tools.rules.bridge_recipe import tiny_gpt_recipe

    plan = build(repo / path)
    s = plan.run_shape
    modules = ("attn", "moe_router", "moe_preprocess") if s.is_moe else ("attn", "mlp")
    spec = VariantSpec(name="te:" + "+".join(modules), engine="bridge", workload=workload_of(plan),
                       impl="transformer_engine", modules=modules, model=model_record(plan), capture_stream="default")
    cfg = tiny_gpt_recipe()
    cfg.model.activation_func = getattr(torch.nn.functional, activation_callable(s))  # what the GPU half sets
    cfg = process_config_with_overrides(cfg, cli_overrides=cli.run_overrides(spec, resolve_era(None)))
    m = cfg.model
    assert (m.num_layers, m.hidden_size, m.ffn_hidden_size, m.num_attention_heads, m.num_query_groups,
            m.kv_channels, m.seq_length) == (s.num_layers, s.hidden_size, s.ffn_hidden_size, s.num_attention_heads,
                                             s.num_query_groups, s.kv_channels, s.seq_length)
    assert (m.num_moe_experts, m.moe_shared_expert_intermediate_size, m.qk_layernorm, m.gated_linear_unit) == (
        s.num_experts, s.moe_shared_expert_intermediate_size, s.qk_layernorm, s.gated)
    assert m.cuda_graph_impl == "transformer_engine"
