"""CUDA graphs for Qwen3-30B-A3B (dropless MoE, alltoall, EP=8) in Megatron Bridge.

Can the whole MoE layer be graphed?  No.  Dropless routing sends a different
number of tokens to each expert every step, and the alltoall dispatcher copies
those token counts to the host (a device-to-host sync) to size the exchange.
Neither dynamic shapes nor D2H syncs survive stream capture, so:
  * whole-layer capture (empty module list) fails at capture time;
  * the "moe" scope is refused by MCore's config check
    ("moe cuda graph is only supported with drop-padding MoE.");
  * full-iteration capture fails the same way.
What can be graphed is the static part: the router and the dispatch
preprocessing ("moe_router" + "moe_preprocess"), optionally "attn".

Scope rules enforced by TransformerConfig:
  * "moe" and "moe_router" are mutually exclusive, never both;
  * "moe_preprocess" requires "moe_router";
  * "mlp" needs dense layers; Qwen3-30B-A3B is MoE in every layer, so not "mlp".

Needs Megatron Bridge >= 0.5 for megatron.bridge.utils.cuda_graph.
"""

from megatron.bridge.recipes.qwen import qwen3_30b_a3b_pretrain_config
from megatron.bridge.utils.cuda_graph import set_cuda_graph_modules

BASE_MODULES = ["moe_router", "moe_preprocess"]


def enable_moe_cuda_graphs(cfg, with_attn: bool = False, warmup_steps: int = 3):
    modules = (["attn"] if with_attn else []) + BASE_MODULES

    assert not ({"moe", "moe_router"} <= set(modules)), "moe and moe_router cannot be combined"
    assert "moe_preprocess" not in modules or "moe_router" in modules

    cfg.model.cuda_graph_impl = "transformer_engine"
    # Writes cuda_graph_modules and clears cuda_graph_scope on megatron-core 0.18+,
    # writes cuda_graph_scope on 0.16/0.17. The stock recipe already sets
    # cuda_graph_scope, and on 0.18+ having both set is an assert.
    set_cuda_graph_modules(cfg.model, modules)
    cfg.model.cuda_graph_warmup_steps = warmup_steps

    # Graph-safe RNG: required for any CUDA graph in Bridge.
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # Per-layer graphs can't sit inside whole-layer recompute, and recomputing
    # "moe" would re-run the graphed router.
    if cfg.model.recompute_granularity == "full":
        cfg.model.recompute_granularity = "selective"
        cfg.model.recompute_method = None
        cfg.model.recompute_num_layers = None
        cfg.model.recompute_modules = ["moe_act", "layernorm"]
    elif cfg.model.recompute_modules and "moe" in cfg.model.recompute_modules:
        cfg.model.recompute_modules = [m for m in cfg.model.recompute_modules if m != "moe"] or ["moe_act"]
    return cfg


def build(with_attn: bool = False):
    cfg = qwen3_30b_a3b_pretrain_config()
    # Your layout. The stock recipe uses a flex (HybridEP) dispatcher and EP=16.
    cfg.model.moe_token_dispatcher_type = "alltoall"
    cfg.model.moe_flex_dispatcher_backend = None
    cfg.model.expert_model_parallel_size = 8
    # Graphs replay fixed shapes: keep seq_length and micro_batch_size constant,
    # no variable-length / unpadded packed batches.
    return enable_moe_cuda_graphs(cfg, with_attn=with_attn)


# Plan: run 1 = eager baseline, run 2 = build(with_attn=False), run 3 = build(with_attn=True).
# Compare steady-state step time after the capture step (iteration warmup_steps + 1 includes
# capture) with the same seed. On alltoall-bound layouts the gain is often small or neutral,
# so keep graphs only if they beat eager outside run-to-run noise.
