# Dynamic inference engine, megatron-core 0.19: decode CUDA graphs.
from megatron.core.transformer import TransformerConfig

config = TransformerConfig(
    num_layers=32, hidden_size=4096, num_attention_heads=32,
    # Inference graphs are the *local* implementation. transformer_engine and full_iteration
    # only accept inference_cuda_graph_scope="none" ("Invalid inference CUDA graph scope ...").
    cuda_graph_impl="local",
    # "block": one graph per TransformerBlock step (fewest launches); "layer": one per layer.
    inference_cuda_graph_scope="block",
    bf16=True,
)
# Notes:
# - Capture and replay under the same torch.inference_mode() context.
# - MoE decode needs static shapes: moe_pad_experts_for_cuda_graph_inference=True
#   (or transformer_impl="inference_optimized").
# - FP8 with the block scope needs transformer_impl="inference_optimized" (mxfp8 recipe).
# - Pipeline-parallel microbatched inference is not compatible with these graphs.
# - EP > 1: all ranks must agree on graph buckets and the EP communicator must exist before
#   capture (MLM PRs #3033, #6412) — upgrade if multinode MoE decode hangs in graph warmup.
