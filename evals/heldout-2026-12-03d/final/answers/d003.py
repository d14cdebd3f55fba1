"""Guard test for our drop-and-pad MoE CUDA graph setting (megatron-core 0.19).

Yes, the MoE block can be captured because drop-and-pad gives every expert a static,
padded input. The rules: TE impl, `moe` not combined with `moe_router`/`moe_preprocess`,
padding must stay on, TE RNG tracker on (use cuda_graph_scope instead of
cuda_graph_modules on 0.16/0.17).
"""
import pytest
from megatron.core.transformer import TransformerConfig

BASE = dict(
    num_layers=2, hidden_size=128, num_attention_heads=4,
    num_moe_experts=8, moe_router_topk=2,
    moe_expert_capacity_factor=1.0, moe_pad_expert_input_to_capacity=True,
    moe_token_dispatcher_type="alltoall",
    cuda_graph_impl="transformer_engine", cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,
)


def test_drop_pad_moe_scope_is_accepted():
    cfg = TransformerConfig(**BASE, cuda_graph_modules=["attn", "moe"])
    assert [m.name for m in cfg.cuda_graph_modules] == ["attn", "moe"]


def test_moe_with_router_is_refused():
    with pytest.raises(AssertionError, match="must not contain both moe and moe_router"):
        TransformerConfig(**BASE, cuda_graph_modules=["attn", "moe", "moe_router"])


def test_moe_without_padding_is_refused():
    cfg = dict(BASE, moe_pad_expert_input_to_capacity=False)
    with pytest.raises(AssertionError, match="only supported with drop-padding MoE"):
        TransformerConfig(**cfg, cuda_graph_modules=["attn", "moe"])
