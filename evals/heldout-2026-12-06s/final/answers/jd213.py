"""Decode CUDA graphs with the MCore dynamic inference engine (megatron-core 0.19).

Short answers
-------------
* Inference graphs come only from the *local* implementation (MCore CudaGraphManager):
      cuda_graph_impl="local" + inference_cuda_graph_scope="layer" | "block"
  "block" graphs the whole TransformerBlock per batch bucket (fewest launches, least graph
  memory). "layer" gives one graph per layer per bucket. With local and no inference scope
  set, 0.19 defaults to "layer".
* transformer_engine graphs cannot serve decode. On 0.19 the only inference scope allowed
  for cuda_graph_impl="transformer_engine" (and "full_iteration") is "none"; anything else
  fails with "Invalid inference CUDA graph scope ... for cuda_graph_impl=...". The TE replay
  path also refuses an inference_context ("For inference cuda graph, please use
  cuda_graph_impl=local instead."). Keep TE graphs for training; build the serving model's
  config with local.
"""

from megatron.core.inference.config import InferenceConfig
from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
from megatron.core.inference.engines.dynamic_engine import DynamicInferenceEngine
from megatron.core.transformer.transformer_config import TransformerConfig

# --- model config used for serving -------------------------------------------------------
config = TransformerConfig(
    num_layers=32, hidden_size=4096, num_attention_heads=32,    # your model's values
    use_te_rng_tracker=True,
    cuda_graph_impl="local",
    cuda_graph_modules=[],                  # training-side modules; irrelevant for decode
    inference_cuda_graph_scope="block",     # or "layer"
    # MoE decode needs static expert shapes:
    # moe_pad_experts_for_cuda_graph_inference=True,   # unless transformer_impl="inference_optimized"
    # FP8 with block scope: transformer_impl="inference_optimized" and fp8_recipe="mxfp8".
)

# --- engine / context config ---------------------------------------------------------------
inference_config = InferenceConfig(
    max_sequence_length=4096,
    max_requests=128,
    buffer_size_gb=20,
    # num_cuda_graphs defaults to None = NO graphs, even with cuda_graph_impl="local".
    num_cuda_graphs=-1,                           # -1: pick the bucket count from max_requests
    use_cuda_graphs_for_non_decode_steps=False,   # decode-only graphs; prefill steps stay eager
)

context = DynamicInferenceContext(model_config=config, inference_config=inference_config)
# controller = TextGenerationController(inference_wrapped_model=..., tokenizer=...)
# engine = DynamicInferenceEngine(controller, context)   # graphs are captured here

# Notes
# - Capture and replay must both run under torch.inference_mode. The engine captures under
#   inference_mode; drive engine steps the same way and don't call the graphed model from
#   a grad-enabled context in between.
# - Graphs replay static shapes: a step is padded up to the smallest captured bucket that
#   fits. Steps that fit no bucket (or prefill steps with decode-only graphs) run eagerly.
# - Pipeline-parallel microbatched inference doesn't work with these graphs.
# - Expert parallel > 1: all EP ranks must agree on graph buckets and the EP communicator
#   must be set up before capture (Megatron-LM PRs #3033, #6412). If multinode MoE decode
#   hangs in graph warmup, upgrade.
# - Megatron-LM launcher equivalent:
#     --cuda-graph-impl local --inference-cuda-graph-scope block \
#     --inference-dynamic-batching-num-cuda-graphs -1 --decode-only-cuda-graphs --te-rng-tracker
#
# Confirm it worked: the log must show "> dynamic_engine.py: building cuda graphs for" and
# "> built cuda graph(s) in ... sec". No such lines means decode is running eagerly.
