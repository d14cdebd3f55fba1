# Decode CUDA graphs with the MCore dynamic inference engine, megatron-core 0.19.
#
# TL;DR
#   * Use cuda_graph_impl="local" plus inference_cuda_graph_scope:
#       "layer" -> one graph per TransformerLayer per batch bucket (this is the default for local)
#       "block" -> one graph per bucket around the whole TransformerBlock (fewer launches, less memory)
#   * transformer_engine graphs can't be used for decode. In 0.19 the allowed inference scopes
#     per impl are {"local": layer|block, "transformer_engine": none, "full_iteration": none},
#     and anything else fails with
#       "Invalid inference CUDA graph scope 'block' for cuda_graph_impl='transformer_engine'."
#     TE's make_graphed_callables path is a training path (and TransformerLayer's TE replay
#     asserts inference_context is None: "For inference cuda graph, please use
#     cuda_graph_impl=local instead.").
#   * Ask for a graph count. InferenceConfig.num_cuda_graphs defaults to None = no graphs.

from megatron.core.inference.config import InferenceConfig
from megatron.core.transformer.transformer_config import TransformerConfig

config = TransformerConfig(
    # ... your model's num_layers / hidden_size / heads / precision ...
    cuda_graph_impl="local",
    cuda_graph_modules=[],               # training-side modules; irrelevant for decode
    inference_cuda_graph_scope="block",  # or "layer"
    use_te_rng_tracker=True,
)

inference_config = InferenceConfig(
    # ... max_requests / buffer sizes as you have them ...
    num_cuda_graphs=-1,                          # -1 = automatic bucket count (0.17+); or an int
    use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs; mixed/prefill graphs multiply memory
)

# Megatron-LM launcher equivalent:
#   python examples/inference/gpt/gpt_dynamic_inference.py \
#       --cuda-graph-impl local --inference-cuda-graph-scope block \
#       --inference-dynamic-batching-num-cuda-graphs -1 --decode-only-cuda-graphs --te-rng-tracker
#
# Things that bite:
#   - Capture and replay must both happen under torch.inference_mode(). The engine's warmup
#     captures that way; if you drive the model yourself, wrap your decode calls the same way
#     or the graphs won't match.
#   - Batches are padded up to the smallest captured bucket; steps that fit no bucket (or prefill
#     steps with decode-only graphs) run eagerly.
#   - MoE with expert parallelism needs static expert shapes: moe_pad_experts_for_cuda_graph_inference=True
#     (or transformer_impl="inference_optimized", which forbids that flag).
#   - FP8 with block scope: only transformer_impl="inference_optimized" + fp8_recipe="mxfp8".
#   - EP > 1 across nodes: all EP ranks must agree on the graph buckets and the EP communicator
#     must be initialised before capture (fixed upstream in Megatron-LM PRs #3033 / #6412).
#     If multinode MoE decode hangs in graph warmup, upgrade first.
#   - Don't spell block graphs as cuda_graph_modules=["full_iteration_inference"] on 0.19. That
#     is the deprecated spelling; it gets migrated to inference_cuda_graph_scope="block" with a warning.
#
# Confirm it worked: the log should show "> built N cuda graph(s) in X sec, with total memory
# usage: ...". Then compare decode tokens/s eager vs graphed at the batch sizes you actually serve,
# and check greedy outputs match.
