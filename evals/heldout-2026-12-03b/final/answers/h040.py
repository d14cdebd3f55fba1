# megatron-core 0.19: capturing the MoE block of a capacity-limited MoE with TE CUDA graphs.
from megatron.core.transformer import TransformerConfig

config = TransformerConfig(
    num_layers=24, hidden_size=2048, num_attention_heads=16,
    num_moe_experts=64, moe_router_topk=2, moe_token_dispatcher_type="alltoall",
    # The capacity factor caps every expert at a fixed token count, which is what makes the
    # expert shapes static. Padding up to capacity adds nothing for capture and only burns
    # compute on padded rows, so it is switched off.
    moe_expert_capacity_factor=1.0,
    moe_pad_expert_input_to_capacity=False,
    cuda_graph_impl="transformer_engine",
    cuda_graph_modules=["attn", "moe"],   # never together with moe_router / moe_preprocess
    cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,
    bf16=True,
)
