# megatron-core 0.19: building the config directly (no Bridge)
from megatron.core.transformer import TransformerConfig

config = TransformerConfig(
    num_layers=24, hidden_size=2048, num_attention_heads=16,
    num_moe_experts=64, moe_router_topk=2,
    moe_token_dispatcher_type="alltoall",
    # drop-and-pad: static expert shapes -> the MoE block is capturable
    moe_expert_capacity_factor=1.0,
    moe_pad_expert_input_to_capacity=True,
    # TE-scoped CUDA graphs on attention and the whole MoE block.
    # moe excludes moe_router / moe_preprocess (they must not be combined).
    cuda_graph_impl="transformer_engine",
    cuda_graph_modules=["attn", "moe"],
    cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,   # graph-safe RNG (Megatron-LM: --te-rng-tracker)
    bf16=True,
)
