# megatron-core 0.19, dynamic inference engine: decode CUDA graphs.
# TE graphs are for training only: with cuda_graph_impl="transformer_engine" (or
# "full_iteration") the only allowed inference scope is "none".
from megatron.core.transformer import TransformerConfig

config = TransformerConfig(
    num_layers=24,
    hidden_size=2048,
    num_attention_heads=16,
    cuda_graph_impl="local",
    inference_cuda_graph_scope="block",   # whole block per step; "layer" = one graph per layer
    # MoE decode needs static shapes: moe_pad_experts_for_cuda_graph_inference=True
    # (or transformer_impl="inference_optimized"); FP8 + block needs inference_optimized.
)
# The engine captures one graph per batch bucket during warmup. Capture and replay must
# both run under the same torch.inference_mode() context. PP microbatched inference is
# not supported with graphs.
