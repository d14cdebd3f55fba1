# Decode CUDA graphs with the MCore dynamic inference engine, megatron-core 0.19.
#
# TL;DR: inference graphs are the MCore "local" implementation only.
#   cuda_graph_impl="transformer_engine" (and "full_iteration") accept only
#   inference_cuda_graph_scope="none" -> TransformerConfig asserts
#   "Invalid inference CUDA graph scope ... for cuda_graph_impl='transformer_engine'".
#   TE graphs are a training feature; for serving use local.

from megatron.core.transformer import TransformerConfig
from megatron.core.inference.config import InferenceConfig

config = TransformerConfig(
    num_layers=32, hidden_size=4096, num_attention_heads=32,   # your model's values
    cuda_graph_impl="local",
    cuda_graph_modules=[],
    inference_cuda_graph_scope="block",   # whole TransformerBlock per graph, fewest launches
    # inference_cuda_graph_scope="layer", # per-layer graphs if block doesn't suit
    use_te_rng_tracker=True,
    # MoE: decode needs static shapes -> moe_pad_experts_for_cuda_graph_inference=True
    #      (or transformer_impl="inference_optimized").
    # FP8 with block scope needs transformer_impl="inference_optimized".
)

inference_config = InferenceConfig(
    num_cuda_graphs=-1,                         # default None = no graphs at all!
    use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs
)

# Run capture (engine warmup) and every replay under the same torch.inference_mode();
# don't mix inference_mode and no_grad between warmup and generate().
# Not supported: PP microbatched inference with graphs.
# EP>1: ranks must agree on graph buckets and the EP communicator must exist before capture
# (MLM PRs #3033/#6412) -- if multinode MoE decode hangs in graph warmup, upgrade.
# Confirm capture in the log and compare eager vs graphed outputs on a few prompts.
