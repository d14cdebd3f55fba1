"""CUDA-graph settings for Qwen3-30B-A3B (Megatron Bridge, alltoall dispatcher, EP=8).

Q: Which scope? Can I graph the whole MoE layer?

Dropless routing as-is can't be captured. Each expert gets a different token count every
step, and the alltoall dispatcher copies those counts to the host (a D2H sync) to size its
buffers. Neither is allowed inside a CUDA graph.

You *can* capture the whole MoE block, though. Give the router a fixed capacity, and the
per-expert buffers become fixed-size, so the expert GEMMs, the permute/unpermute and the
all-to-all all become static. With capacity factor 1.0 there is little extra compute, and
on this model the MoE block is where most of the launches are, so it gives the biggest
reduction in launch overhead.

Two rules MCore checks at config time:
  * `moe` and `moe_router` are mutually exclusive. `moe` already contains the router, so never
    list both.
  * `moe_preprocess` requires `moe_router`, so it is out as well when you use `moe`.

If you'd rather keep routing strictly dropless, use `apply_dropless_scoped_graphs` instead
(router + preprocess, optionally attention).
"""


def apply_moe_block_graphs(cfg, megatron_core_018_plus: bool = True):
    """Capture attention + the whole MoE block with TE per-layer graphs."""
    modules = ["attn", "moe"]

    cfg.model.cuda_graph_impl = "transformer_engine"
    if megatron_core_018_plus:
        cfg.model.cuda_graph_scope = None          # clear the recipe's legacy key
        cfg.model.cuda_graph_modules = modules
    else:                                          # megatron-core 0.16 / 0.17 spelling
        cfg.model.cuda_graph_scope = modules
    cfg.model.cuda_graph_warmup_steps = 3

    # Fixed per-expert capacity -> static expert shapes
    cfg.model.moe_expert_capacity_factor = 1.0

    # Graph-safe RNG (the GPT provider asserts this when graphs are enabled)
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


def apply_dropless_scoped_graphs(cfg, megatron_core_018_plus: bool = True, with_attn: bool = False):
    """Strictly dropless alternative: graph only the router and preprocessing."""
    modules = (["attn"] if with_attn else []) + ["moe_router", "moe_preprocess"]
    cfg.model.cuda_graph_impl = "transformer_engine"
    if megatron_core_018_plus:
        cfg.model.cuda_graph_scope = None
        cfg.model.cuda_graph_modules = modules
    else:
        cfg.model.cuda_graph_scope = modules
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Usage (keep seq_length and micro_batch_size fixed; compare post-capture iterations against
# an eager run with the same seed, never the capture step itself):
#
#   cfg = qwen3_30b_a3b_recipe()       # your existing ConfigContainer
#   cfg = apply_moe_block_graphs(cfg)
#   pretrain(cfg, forward_step)
