# Dynamic-engine decode with CUDA graphs, megatron-core 0.19.
#
# Short version: inference graphs come from MCore's *local* CudaGraphManager.
# transformer_engine (and full_iteration) only allow inference_cuda_graph_scope="none",
# so a TE-graphed training config must switch to cuda_graph_impl="local" for serving.

import torch
from megatron.core.inference.config import InferenceConfig
from megatron.core.transformer.transformer_config import TransformerConfig


def build_configs(base: dict):
    config = TransformerConfig(
        **base,                                  # num_layers, hidden_size, heads, ... of your GPT
        cuda_graph_impl="local",                 # NOT "transformer_engine": TE graphs are training-only
        inference_cuda_graph_scope="block",      # one graph per batch bucket around the whole decoder;
                                                 # "layer" = per layer, more launches, confines failures
        use_te_rng_tracker=True,
    )
    inference_config = InferenceConfig(
        max_requests=128,
        buffer_size_gb=20,
        # Graph buckets: the engine captures a set of decode batch sizes (16 by default,
        # exponentially spaced up to max_requests) -- leave num_cuda_graphs at its default
        # unless you want more/fewer buckets.
        use_cuda_graphs_for_non_decode_steps=False,   # decode-only graphs; mixed prefill graphs
                                                      # multiply graph count and memory
    )
    return config, inference_config


# Capture and replay must run under the same torch.inference_mode() setting; the engine
# handles this, a hand-written loop must do the same:
#
#   with torch.inference_mode():
#       engine = DynamicInferenceEngine(controller, context, ...)
#       ... engine.generate(...)
#
# MoE with EP > 1: set moe_pad_experts_for_cuda_graph_inference=True (static expert shapes)
# unless transformer_impl="inference_optimized". FP8 with block scope needs
# transformer_impl="inference_optimized" + fp8_recipe="mxfp8". PP-microbatched inference
# does not support graphs.
#
# Verify: look for "> built cuda graph(s) in ..." in the log, then compare tokens/s eager vs
# graphed at your real batch sizes.
