"""Decode CUDA graphs for the MCore dynamic inference engine (megatron-core 0.19).

TL;DR
  * Use cuda_graph_impl="local" and pick inference_cuda_graph_scope:
      "layer": one graph per TransformerLayer per batch-size bucket (the default for local)
      "block": one graph for the whole TransformerBlock per bucket (fewer launches, the
               largest decode win, a bit more graph memory)
  * transformer_engine graphs can NOT be used for inference. TE's make_graphed_callables
    path is training-only; the only inference scope allowed with it is "none"
    (so is full_iteration's). The config check is
      ALLOWED_INFERENCE_SCOPES = {"none": {none}, "local": {layer, block},
                                  "transformer_engine": {none}, "full_iteration": {none}}
    and anything else fails with
      "Invalid inference CUDA graph scope 'block' for cuda_graph_impl='transformer_engine'."
  * If the same checkpoint is trained with TE graphs, build the serving model config
    with impl="local". Training impl and serving impl are independent settings.

Megatron-LM CLI equivalent:
    --cuda-graph-impl local --inference-cuda-graph-scope block \
    --inference-dynamic-batching-num-cuda-graphs -1
On 0.16/0.17 (no inference_cuda_graph_scope yet): 0.17 uses
    --cuda-graph-impl local --cuda-graph-scope full_iteration_inference   (block-level);
0.16 only has per-layer local inference graphs.
"""

import dataclasses

import torch

from megatron.core.inference.config import InferenceConfig
from megatron.core.inference.contexts.dynamic_context import DynamicInferenceContext
from megatron.core.inference.engines.dynamic_engine import DynamicInferenceEngine
from megatron.core.transformer.enums import InferenceCudaGraphScope
from megatron.core.transformer.transformer_config import TransformerConfig


def serving_model_config(train_cfg: TransformerConfig, scope: str = "block") -> TransformerConfig:
    """Derive a serving config from the training config; only graph fields change."""
    cfg = dataclasses.replace(
        train_cfg,
        cuda_graph_impl="local",
        cuda_graph_modules=[],               # training-only knob; irrelevant for decode graphs
        inference_cuda_graph_scope=scope,    # "layer" or "block"; normalized in __post_init__
        cpu_offloading=False,                # graphs + CPU offloading are rejected
    )
    assert cfg.inference_cuda_graph_scope in (
        InferenceCudaGraphScope.layer,
        InferenceCudaGraphScope.block,
    )

    # MoE decode needs static shapes: no D2H sync in routing.
    if cfg.num_moe_experts:
        assert cfg.moe_pad_experts_for_cuda_graph_inference or cfg.transformer_impl == "inference_optimized", (
            "set moe_pad_experts_for_cuda_graph_inference=True (or use transformer_impl="
            "'inference_optimized') so expert routing is graph-capturable"
        )

    # FP8 with block scope: only transformer_impl='inference_optimized' + mxfp8
    # (arguments.py enforces the same for --inference-cuda-graph-scope=block).
    if cfg.fp8 and cfg.inference_cuda_graph_scope == InferenceCudaGraphScope.block:
        assert cfg.transformer_impl == "inference_optimized" and cfg.fp8_recipe == "mxfp8"

    # Pipeline-parallel *microbatched* inference (--inference-batch-times-seqlen-threshold)
    # is incompatible with CUDA graphs; keep that off.
    return cfg


def build_engine(controller, model_cfg: TransformerConfig) -> DynamicInferenceEngine:
    """`controller` is your TextGenerationController wrapping a model built from model_cfg."""
    inference_cfg = InferenceConfig(
        max_sequence_length=4096,
        buffer_size_gb=20,
        block_size_tokens=256,
        num_cuda_graphs=16,                       # batch-size buckets to capture
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs; set True to also graph prefill/mixed
    )
    context = DynamicInferenceContext(model_cfg, inference_cfg)
    # The engine captures the bucket graphs itself (create_cuda_graphs) during construction,
    # running each warmup forward under torch.inference_mode(). Serve under
    # torch.inference_mode() too: a graph captured in one autograd mode must be replayed in
    # the same mode, so never mix no_grad capture with inference_mode replay.
    return DynamicInferenceEngine(controller, context)


# ---------------------------------------------------------------------------
# How to confirm graphs are actually in use (don't trust the config alone):
#   log line:   "> built cuda graph(s) in X.XX sec."    (dynamic_engine.py)
#   per step:   the engine reports cuda_graph_request_count; None means that step ran eager
#   A/B:        tokens/s vs cuda_graph_impl="none" after warmup; block > layer on small batches
#
# Multi-rank MoE (EP > 1): all EP ranks must pick the same graph bucket each step and the EP
# communicator must be set up before capture. Older builds could hang in graph warmup on
# multinode MoE decode (fixed upstream, Megatron-LM PRs #3033, #6412); upgrade if you see that.
# ---------------------------------------------------------------------------

if __name__ == "__main__":
    with torch.inference_mode():
        pass  # engine.add_request(...); engine.step_modern(...) etc.
