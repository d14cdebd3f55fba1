# %% [markdown]
# ## Decode CUDA graphs with the MCore dynamic engine (megatron-core 0.19)
#
# * Only `cuda_graph_impl="local"` builds inference graphs. Pick the granularity with
#   `inference_cuda_graph_scope`: `"layer"` (default, one graph per layer) or `"block"`
#   (whole transformer block per graph, fewer launches — usually the faster one).
# * `transformer_engine` (and `full_iteration`) allow only `inference_cuda_graph_scope="none"`;
#   anything else fails with `Invalid inference CUDA graph scope ... for cuda_graph_impl=...`.
#   TE graphs are a training feature — keep them for your training config, not serving.
# * You also need a graph count: `InferenceConfig.num_cuda_graphs` defaults to `None` = no graphs.

# %%
from megatron.core.transformer import TransformerConfig
from megatron.core.inference.config import InferenceConfig

config = TransformerConfig(
    num_layers=32, hidden_size=4096, num_attention_heads=32,   # your model's values
    use_te_rng_tracker=True,
    cuda_graph_impl="local",
    cuda_graph_modules=[],
    inference_cuda_graph_scope="block",      # or "layer"
)
inference_config = InferenceConfig(
    num_cuda_graphs=-1,                        # automatic bucket count (0.17+)
    use_cuda_graphs_for_non_decode_steps=False # decode-only graphs; mixed prefill graphs multiply memory
)

# %% [markdown]
# Gotchas
# * Capture and replay must happen under the **same** `torch.inference_mode()` — build the engine
#   and run generation inside one inference_mode context (don't capture under no_grad and replay
#   under inference_mode).
# * MoE decode needs static shapes: `moe_pad_experts_for_cuda_graph_inference=True`
#   (or `transformer_impl="inference_optimized"`). FP8 with `block` scope needs
#   `transformer_impl="inference_optimized"`.
# * Pipeline-parallel microbatched inference doesn't work with graphs.
# * EP>1: all EP ranks must agree on the graph buckets and the EP communicator must exist before
#   capture (Megatron-LM PRs #3033, #6412). If multinode MoE decode hangs in graph warmup, upgrade.
# * Confirm capture: `> built N cuda graph(s) in ... sec` in the log; then compare decode tok/s vs eager.
#
# Megatron-LM launcher equivalent:
#   --cuda-graph-impl local --inference-cuda-graph-scope block \
#   --inference-dynamic-batching-num-cuda-graphs -1 --decode-only-cuda-graphs --te-rng-tracker
