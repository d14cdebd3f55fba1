"""The run shape of each example plan as Megatron-LM flags, judged by Megatron-LM's own
parse_and_validate_args, and as Bridge Hydra overrides, judged by the Hydra reader."""

from __future__ import annotations

import pytest

from skill_tools.plan import build
from skill_tools.config.shape_render import bridge_shape_overrides, megatron_lm_shape_flags, moe_layer_freq_flag

EXAMPLES = ["examples/megatron_lm_llama3_8b.sh", "examples/bridge_qwen3_30b_a3b.yaml",
            "examples/hydra_qwen15_moe_shared_expert.txt"]
#: The engine's loop flags (what stands beside the shape; the same as the tiny runs').
LOOP = ["--global-batch-size", "1", "--train-iters", "10", "--lr", "1e-4", "--bf16", "--mock-data",
        "--tokenizer-type", "NullTokenizer", "--transformer-impl", "transformer_engine", "--split", "99,1,0",
        "--eval-iters", "0", "--eval-interval", "100000", "--no-gradient-accumulation-fusion"]


@pytest.mark.parametrize("path", EXAMPLES)
def test_shape_flags_pass_megatron_lms_validation_and_carry_the_shape(repo, monkeypatch, real_mlm, path):
    from conftest import validated_megatron_lm_args as _validated_args

    plan = build(repo / path)
    s = plan.run_shape
    # --moe-grouped-gemm asks the GPU's compute capability: answer for the H200 (sm90)
    monkeypatch.setattr("torch.cuda.get_device_capability", lambda *a: (9, 0))
    args, _ = _validated_args(monkeypatch, megatron_lm_shape_flags(s, plan.run_layout) + LOOP)
    assert (args.num_layers, args.hidden_size, args.ffn_hidden_size, args.seq_length) == (
        s.num_layers, s.hidden_size, s.ffn_hidden_size, s.seq_length)
    groups = args.num_query_groups if args.group_query_attention else args.num_attention_heads
    assert (groups, args.kv_channels, args.padded_vocab_size >= s.vocab_size) == (s.num_query_groups, s.kv_channels, True)
    assert args.swiglu and args.normalization == "RMSNorm" and not args.add_bias_linear
    assert args.untie_embeddings_and_output_weights
    if s.is_moe:
        assert (args.num_experts, args.moe_router_topk, args.moe_ffn_hidden_size) == (
            s.num_experts, s.moe_router_topk, s.moe_ffn_hidden_size)
        assert args.moe_shared_expert_intermediate_size == s.moe_shared_expert_intermediate_size
        assert args.qk_layernorm == s.qk_layernorm


def test_a_first_dense_layer_pattern_renders_megatron_lms_list_form():
    assert moe_layer_freq_flag([0, 1, 1, 1]) == "([0]*1+[1]*3)"
    assert moe_layer_freq_flag(2) == "2"


@pytest.mark.parametrize("path", EXAMPLES)
def test_bridge_overrides_read_back_as_the_same_shape(repo, path):
    from skill_tools.config.readers import read_text
    from skill_tools.config.shape import read_shape

    plan = build(repo / path)
    cfg = read_text("\n".join(bridge_shape_overrides(plan.run_shape, plan.run_layout)), fmt="hydra")
    cfg.set("model.activation_func", "silu")
    back = read_shape(cfg).to_dict()
    want = plan.run_shape.to_dict()
    differ = {k for k in want if k not in ("origin", "precision") and back[k] != want[k]}
    assert differ == set()
