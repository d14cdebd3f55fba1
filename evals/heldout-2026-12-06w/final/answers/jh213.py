"""Decode CUDA graphs for the MCore dynamic inference engine (megatron-core 0.19).

Short version
-------------
* Decode graphs come only from MCore's *local* CudaGraphManager:
  cuda_graph_impl="local" + inference_cuda_graph_scope="layer" | "block".
* transformer_engine graphs can't be used here. ALLOWED_INFERENCE_SCOPES (cuda_graph_config.py)
  allows only inference scope "none" for "transformer_engine" and "full_iteration". Asking
  for layer/block with them fails in TransformerConfig.__post_init__ with
  "Invalid inference CUDA graph scope 'block' for cuda_graph_impl='transformer_engine'."
  TE graphs are a training-only path (make_graphed_callables, no inference_context input).
  If the same model config is shared with training, switch cuda_graph_impl to "local" for
  the serving process.
* "layer": one graph per TransformerLayer per batch bucket. Python still runs between layers.
  "block": one graph per bucket around the whole TransformerBlock (HybridModel: the model).
  Fewer launches and usually faster at small batch. Start with block, and fall back to layer
  if something inside the block can't be captured.
* You also need a graph count. InferenceConfig.num_cuda_graphs defaults to None, which means
  NO graphs, even with everything above set.
"""

from megatron.core.inference.config import InferenceConfig
from megatron.core.transformer import TransformerConfig


def decode_graph_model_kwargs(scope: str = "block") -> dict:
    """Extra TransformerConfig kwargs for graphed decode."""
    assert scope in ("layer", "block")
    return dict(
        cuda_graph_impl="local",
        cuda_graph_modules=[],              # leave empty; don't carry a training module list over
        inference_cuda_graph_scope=scope,   # unset with "local" means "layer"
        use_te_rng_tracker=True,
        # FP8 + block scope: only with transformer_impl="inference_optimized" and fp8_recipe="mxfp8"
        # MoE with EP > 1: set moe_pad_experts_for_cuda_graph_inference=True (static expert
        #   shapes); the controller asserts it unless transformer_impl="inference_optimized"
    )


def decode_graph_inference_config(**kw) -> InferenceConfig:
    return InferenceConfig(
        num_cuda_graphs=-1,                        # -1 = automatic bucket count; None = no graphs
        use_cuda_graphs_for_non_decode_steps=False,  # decode-only; mixed prefill graphs multiply memory
        **kw,
    )


# Megatron-LM launch equivalent (examples/inference/gpt/gpt_dynamic_inference.py):
MLM_FLAGS = [
    "--cuda-graph-impl", "local",
    "--inference-cuda-graph-scope", "block",
    "--inference-dynamic-batching-num-cuda-graphs", "-1",
    "--decode-only-cuda-graphs",
    "--te-rng-tracker",
]

# Notes that bite in practice
# - Run generation through the engine/controller. It does warm-up, capture and replay inside
#   torch.inference_mode(). Don't call the graphed model outside it (e.g. a no_grad eval loop
#   on the same model object) and expect it to replay the same graphs.
# - Pipeline-parallel microbatched inference is incompatible with CUDA graphs (Megatron-LM
#   asserts it). Serve graphed decode without PP microbatching.
# - EP > 1 (multi-node MoE): all EP ranks must agree on the graph bucket and the EP communicator
#   must be up before capture. Older builds could hang in graph warm-up (fixed upstream,
#   Megatron-LM PRs #3033/#6412). Upgrade if a multi-node MoE decode stalls in warm-up.
# - 0.16/0.17 have no inference_cuda_graph_scope: there it's local with layer graphs, and on 0.17
#   cuda_graph_scope=["full_iteration_inference"] for the block graph.
#
# Confirm it worked: the engine logs "> built cuda graph(s) in X sec ..." at startup. Then
# compare decode tokens/s against an eager run on the same batch sizes, and check that greedy
# outputs match.

if __name__ == "__main__":
    cfg = TransformerConfig(num_layers=2, hidden_size=64, num_attention_heads=4,
                            **decode_graph_model_kwargs("block"))
    print(cfg.cuda_graph_impl, cfg.inference_cuda_graph_scope)
    print(decode_graph_inference_config())
    print(" ".join(MLM_FLAGS))
