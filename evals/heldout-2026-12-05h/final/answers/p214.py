"""serve_gpt_graphs.py — dynamic inference engine with decode CUDA graphs (megatron-core 0.19)

Answer to: "how do I use CUDA graphs for decode, and can I use transformer_engine graphs?"

* transformer_engine graphs: no. On 0.19 ALLOWED_INFERENCE_SCOPES maps
  "transformer_engine" -> {none}; asking for layer/block fails with
  "Invalid inference CUDA graph scope ... for cuda_graph_impl='transformer_engine'".
  TE graphs are a training feature.
* For the whole decode step as one graph, use the 0.18+ full-iteration impl:
  cuda_graph_impl="full_iteration" captures the entire forward of the block per
  batch bucket (this replaces 0.17's cuda_graph_scope=["full_iteration_inference"]).
  The engine picks the smallest captured bucket that fits each decode batch.
* Capture and replay under the same torch.inference_mode().
* MoE decode: moe_pad_experts_for_cuda_graph_inference=True (static expert shapes).
* FP8: needs transformer_impl="inference_optimized".
* Not with PP-microbatched inference. EP>1: ranks must agree on buckets and the EP
  communicator must exist before capture (MLM PRs #3033, #6412).
"""
import torch

from megatron.core.inference.config import InferenceConfig
from megatron.core.transformer import TransformerConfig


def build_configs(base: dict):
    config = TransformerConfig(
        **base,
        cuda_graph_impl="full_iteration",
        cuda_graph_modules=[],
        use_te_rng_tracker=True,
    )
    inference_config = InferenceConfig(
        num_cuda_graphs=-1,                        # automatic buckets; None would mean no graphs
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs
    )
    return config, inference_config


def serve(engine, prompts):
    # same inference_mode for warmup/capture and for generation
    with torch.inference_mode():
        engine.create_cuda_graphs()
        return engine.generate(prompts)
