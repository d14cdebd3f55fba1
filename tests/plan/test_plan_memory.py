"""The plan's memory estimate against what Megatron-LM's own loop allocated on one H200
(megatron-core 0.19.2, TE 2.20.2, 4 layers, micro-batch 1, bf16, Adam): the Llama-3-8B layer shape
at seq 8192 took ~44 GB, the Qwen3-30B-A3B shape at seq 4096 ~59 GB."""

from __future__ import annotations

import pytest

from skill_tools.config.shape import Layout, ModelShape
from skill_tools.plan.memory import estimate, layer_params

LLAMA = ModelShape(num_layers=4, hidden_size=4096, ffn_hidden_size=14336, num_attention_heads=32, num_query_groups=8,
                   kv_channels=128, seq_length=8192, vocab_size=128256, activation="swiglu", add_bias_linear=False,
                   untie_embeddings=True, normalization="RMSNorm")
QWEN = ModelShape(num_layers=4, hidden_size=2048, ffn_hidden_size=6144, num_attention_heads=32, num_query_groups=4,
                  kv_channels=128, seq_length=4096, vocab_size=151936, activation="swiglu", add_bias_linear=False,
                  untie_embeddings=True, qk_layernorm=True, num_experts=128, moe_router_topk=8,
                  moe_ffn_hidden_size=768, normalization="RMSNorm")


@pytest.mark.parametrize("shape,measured_gb", [(LLAMA, 44.0), (QWEN, 59.0)], ids=["llama3-8b", "qwen3-30b-a3b"])
def test_estimate_is_within_ten_percent_of_the_measured_allocation(shape, measured_gb):
    est = estimate(shape, Layout(), 139.0)
    assert abs(est.total_gb - measured_gb) / measured_gb < 0.10, est


def test_layer_parameters_match_the_published_model_sizes():
    # Llama-3-8B: 32 layers of ~218M + 2 x 525M embeddings = 8.03B parameters
    per_layer = layer_params(LLAMA, moe=False).total
    assert abs(32 * per_layer + 2 * 128256 * 4096 - 8.03e9) / 8.03e9 < 0.01
    # Qwen3-30B-A3B: 30.5B parameters in all
    qwen = layer_params(QWEN, moe=True).total
    assert abs(48 * qwen + 2 * 151936 * 2048 - 30.5e9) / 30.5e9 < 0.02


def test_expert_parallelism_divides_only_the_expert_weights():
    one = estimate(QWEN, Layout(), 139.0)
    four = estimate(QWEN, Layout(ep=4, dp=4), 139.0)
    assert four.per_moe_layer_gb < one.per_moe_layer_gb / 3
    assert four.per_dense_layer_gb == pytest.approx(one.per_dense_layer_gb)


def test_full_recompute_keeps_only_each_layers_input():
    full = estimate(LLAMA.with_values(recompute_granularity="full"), Layout(), 139.0)
    assert full.total_gb < estimate(LLAMA, Layout(), 139.0).total_gb - 4
