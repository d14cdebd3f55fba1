"""Decode CUDA graphs for the MCore dynamic inference engine, megatron-core 0.19.

TL;DR
  * Use cuda_graph_impl="local" + inference_cuda_graph_scope="block" (one graph per
    batch bucket around the whole TransformerBlock, fewest launches) or "layer"
    (per-layer graphs; Python still runs between layers).
  * transformer_engine graphs do NOT serve inference: in 0.18+ only `local` allows
    layer/block; `transformer_engine` and `full_iteration` allow inference scope `none`
    only, else TransformerConfig asserts
    "Invalid inference CUDA graph scope ... for cuda_graph_impl=...".
  * Give the engine a graph count: InferenceConfig.num_cuda_graphs defaults to None
    (= no graphs). -1 = automatic bucket list.

Older eras, for reference: 0.16-0.17 have no inference_cuda_graph_scope. Per-layer
graphs come from cuda_graph_impl="local" with an empty scope; 0.17 adds
cuda_graph_scope=["full_iteration_inference"] for the block graph.
"""

import torch

from megatron.core.inference.config import InferenceConfig
from megatron.core.transformer.transformer_config import TransformerConfig


def build_configs(num_layers: int, hidden_size: int, num_heads: int):
    model_cfg = TransformerConfig(
        num_layers=num_layers,
        hidden_size=hidden_size,
        num_attention_heads=num_heads,
        bf16=True,
        params_dtype=torch.bfloat16,
        use_te_rng_tracker=True,
        cuda_graph_impl="local",               # the only impl that builds inference graphs
        cuda_graph_modules=[],                 # training modules irrelevant for decode
        inference_cuda_graph_scope="block",    # or "layer"
        # MoE with expert parallelism: decode shapes must be static ->
        #   moe_pad_experts_for_cuda_graph_inference=True
        #   (or transformer_impl="inference_optimized", which forbids that flag).
        # FP8 + block scope: transformer_impl="inference_optimized" and fp8_recipe="mxfp8".
    )
    inference_cfg = InferenceConfig(
        num_cuda_graphs=-1,                        # None would mean: no graphs at all
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only graphs; prefill stays eager
    )
    return model_cfg, inference_cfg


if __name__ == "__main__":
    model_cfg, inference_cfg = build_configs(num_layers=32, hidden_size=4096, num_heads=32)

    # Build GPTModel(model_cfg, ...), the DynamicInferenceContext / controller and the
    # DynamicInferenceEngine from inference_cfg as in
    # examples/inference/gpt/gpt_dynamic_inference.py. Equivalent launch of that example:
    #   python examples/inference/gpt/gpt_dynamic_inference.py \
    #     --cuda-graph-impl local --inference-cuda-graph-scope block \
    #     --inference-dynamic-batching-num-cuda-graphs -1 --decode-only-cuda-graphs --te-rng-tracker ...
    #
    # Rules that bite in practice:
    #  1. Capture and replay under the same torch.inference_mode: the engine captures
    #     inside inference_mode; call engine.generate()/step from inference_mode too,
    #     never mix a no_grad() replay with an inference_mode() capture.
    #  2. No pipeline-parallel microbatched inference with graphs.
    #  3. EP > 1: every EP rank must build the same graph buckets, and the EP
    #     communicator must be initialised before capture (Megatron-LM PRs #3033, #6412).
    #     A multinode MoE decode that hangs in graph warmup -> upgrade.
    #
    # Confirm it worked: the log shows
    #   "> built cuda graph(s) in X.XX sec. ..."
    # and with InferenceConfig.logging_step_interval > 0, decode steps report a
    # "cuda graph [...]" bucket. Then compare decode tokens/s against
    # cuda_graph_impl="none" on the same batch sizes.
    print(model_cfg.cuda_graph_impl, model_cfg.inference_cuda_graph_scope, inference_cfg.num_cuda_graphs)
