"""CUDA graphs for Qwen3-30B-A3B (dropless MoE, alltoall dispatcher, EP=8) in Megatron Bridge.

Can the whole MoE layer be graphed?  No.  Dropless routing gives every expert a different,
data-dependent token count each step, and the alltoall dispatcher copies those counts to the
host (a device-to-host sync) to size the exchange.  Neither a dynamic shape nor a host sync can
live inside a CUDA graph, so `moe` (and whole-layer capture) is only accepted for drop-and-pad
MoE.  Graph the parts in front of the dispatch instead.
"""

from megatron.bridge.training.config import ConfigContainer


def enable_moe_cuda_graphs(cfg: ConfigContainer, with_attn: bool = False) -> ConfigContainer:
    """TE per-layer graphs for a dropless MoE recipe (megatron-core 0.18+ keys)."""
    modules = ["moe_router"]
    if with_attn:
        modules.insert(0, "attn")  # A/B this separately, after the router-only run

    # Scope rules enforced by TransformerConfig:
    #  * `moe` and `moe_router` are mutually exclusive.
    #  * `moe_router` and `moe_preprocess` are also mutually exclusive: pick one router-side
    #    graph.  `moe_preprocess` is the variant for drop-and-pad models (capacity factor set),
    #    where the permutation sizes are static; on dropless alltoall stick with `moe_router`.
    #  * no `mlp`: every Qwen3-30B-A3B layer is MoE.
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None  # Qwen3-MoE recipes set a scope list; clear before using modules
    cfg.model.cuda_graph_modules = modules
    cfg.model.cuda_graph_warmup_steps = 3

    # Graph-safe RNG is required for any CUDA graph.
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# On megatron-core 0.16/0.17 the key is `cuda_graph_scope` instead:
#     cfg.model.cuda_graph_scope = ["moe_router"]      # (+ "attn" for the second A/B)
#
# Keep seq_length / micro_batch_size fixed, and compare replay iterations after the capture step
# against an eager baseline.  On alltoall-bound EP=8 shapes a neutral result is common.
