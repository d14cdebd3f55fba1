"""Decode CUDA graphs for a GPT model on the MCore dynamic inference engine (megatron-core 0.19).

Short answers first:

* Use ``cuda_graph_impl="local"``. Inference graphs are owned by MCore's own CudaGraphManager,
  and the granularity is chosen with ``inference_cuda_graph_scope``:
  ``"layer"`` = one graph per TransformerLayer per batch bucket, ``"block"`` = one graph per
  bucket around the whole TransformerBlock (fewest launches; usually the faster choice for decode).
* ``transformer_engine`` (and ``full_iteration``) graphs cannot be used for inference: for those
  impls the only allowed inference scope is ``"none"``; anything else fails in
  TransformerConfig with ``Invalid inference CUDA graph scope ...``. TE graphs are a training
  feature (``make_graphed_callables`` around fwd+bwd per micro-batch).

The helper below builds the two config objects; plug them into your usual
model -> TextGenerationController -> DynamicInferenceContext -> DynamicInferenceEngine setup.
"""

from megatron.core.inference.config import InferenceConfig
from megatron.core.transformer.transformer_config import TransformerConfig


def decode_graph_configs(base: dict, max_requests: int = 128):
    """Return (TransformerConfig, InferenceConfig) with block-scoped decode graphs."""
    model_config = TransformerConfig(
        **base,                             # num_layers, hidden_size, heads, bf16, ...
        cuda_graph_impl="local",
        cuda_graph_modules=[],              # training-side modules; irrelevant for decode
        inference_cuda_graph_scope="block", # or "layer" if one module type can't be captured
        use_te_rng_tracker=True,
    )

    inference_config = InferenceConfig(
        max_requests=max_requests,
        # Leave the graph count unset: with a local impl and an inference scope the engine sizes
        # the batch buckets itself (halving from max_requests down to the TP size), so there's
        # no need to hand-tune it. Set an int only if you want to cap the number of graphs.
        num_cuda_graphs=None,
        # Decode-only graphs: prefill/mixed steps vary in token count and multiply the number
        # of graphs (and their memory); they run eagerly instead.
        use_cuda_graphs_for_non_decode_steps=False,
    )
    return model_config, inference_config


# Other things that matter on 0.19:
# - MoE with EP > 1 needs static expert shapes: moe_pad_experts_for_cuda_graph_inference=True,
#   unless transformer_impl="inference_optimized" (which does its own thing and forbids the flag).
#   With EP, all ranks must agree on the graph buckets and the EP communicator has to be
#   initialised before capture; if a multi-node MoE decode hangs in graph warm-up, upgrade
#   (Megatron-LM PRs #3033, #6412).
# - FP8 with block scope: transformer_impl="inference_optimized" and fp8_recipe="mxfp8".
# - Pipeline-parallel microbatched inference is incompatible with CUDA graphs.
# - Capture and replay happen under the engine's torch.inference_mode(); if you drive the model
#   yourself, keep capture and replay under the same mode.
# - Confirm capture in the log: "> built cuda graph(s) in X sec." after the bucket list, then
#   compare decode tokens/s against cuda_graph_impl="none" at the same batch sizes.
#
# Megatron-LM launcher equivalent:
#   --cuda-graph-impl local --inference-cuda-graph-scope block --decode-only-cuda-graphs
#
# 0.16-0.17 have no inference_cuda_graph_scope: local impl gives per-layer decode graphs, and on
# 0.17 the whole-block graph is cuda_graph_scope=["full_iteration_inference"].
