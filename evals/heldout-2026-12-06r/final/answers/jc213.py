# decode_graphs_019.py -- MCore dynamic inference engine, megatron-core 0.19
#
# Short answer to "can I use transformer_engine graphs for decode?": no.
# For inference the only graphing impl is the MCore-native "local" one. TransformerConfig
# checks inference_cuda_graph_scope against ALLOWED_INFERENCE_SCOPES:
#     none               -> {none}
#     local              -> {layer, block}
#     transformer_engine -> {none}
#     full_iteration     -> {none}
# so "transformer_engine" + layer/block fails with
#     "Invalid inference CUDA graph scope 'layer' for cuda_graph_impl='transformer_engine'."
# TE graphs are a training feature; they never serve decode.

import torch
from megatron.core.transformer.transformer_config import TransformerConfig

config = TransformerConfig(
    # ... your model dims / parallelism ...
    num_layers=32, hidden_size=4096, num_attention_heads=32,
    cuda_graph_impl="local",
    # "layer": one graph per transformer layer (safe default)
    # "block": graph the whole TransformerBlock -> fewer kernel launches per decode step
    inference_cuda_graph_scope="block",
    # MoE only: decode graphs need static shapes, so pad experts (or use
    # transformer_impl="inference_optimized"):
    # moe_pad_experts_for_cuda_graph_inference=True,
    # FP8 + block scope needs transformer_impl="inference_optimized" (and mxfp8 recipe).
)

# Megatron-LM CLI equivalent:
#   --cuda-graph-impl local --inference-cuda-graph-scope block
#   (+ --inference-dynamic-batching-num-cuda-graphs N, the number of batch-size buckets)

# IMPORTANT: capture and replay under the *same* inference mode. The engine warms up / captures
# its graphs the first time it runs; make sure that and every later generate step happen inside
# one torch.inference_mode() context -- tensors created under inference_mode can't be reused
# from a graph captured outside it (and vice versa).
with torch.inference_mode():
    pass  # engine = DynamicInferenceEngine(...); engine.generate(...)

# Other constraints worth knowing before you file a bug:
#  * PP microbatched inference is not compatible with these graphs.
#  * EP > 1: all ranks must agree on the graph buckets, and the EP communicator must be set up
#    before capture (Megatron-LM PRs #3033, #6412). If multi-node MoE decode hangs in graph
#    warmup, upgrade first.
#  * On 0.16-0.17 inference_cuda_graph_scope does not exist; block-level there is
#    cuda_graph_scope=["full_iteration_inference"] (0.17).
