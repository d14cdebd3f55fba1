# cuda_graph_overrides.py -- drop this next to your Bridge recipe and call it on the ConfigContainer
# before pretrain(). Written for megatron-core 0.16.1: on 0.16/0.17 the per-layer coverage field is
# `cuda_graph_scope` (a list). `cuda_graph_modules` and cuda_graph_impl="full_iteration" only exist
# from 0.18 on, so neither appears here.

from megatron.bridge.training.config import ConfigContainer


def enable_te_attn_mlp_graphs(cfg: ConfigContainer) -> ConfigContainer:
    """Per-layer TE CUDA graphs on the attention and MLP sub-blocks of a dense GPT."""
    cfg.model.cuda_graph_impl = "transformer_engine"   # TE make_graphed_callables, per layer
    cfg.model.cuda_graph_scope = ["attn", "mlp"]       # 0.16.x spelling; "mlp" is fine for dense
    cfg.model.cuda_graph_warmup_steps = 3              # eager steps before capture (the default)

    # Graph capture needs the graph-safe RNG from Transformer Engine.
    # Bridge copies one flag onto the other, but set both so the intent is explicit.
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Usage in your launch script:
#   cfg = llama3_8b_pretrain_config(...)   # or whatever dense GPT recipe you start from
#   cfg = enable_te_attn_mlp_graphs(cfg)
#   pretrain(cfg, forward_step)
#
# Equivalent CLI overrides:
#   model.cuda_graph_impl=transformer_engine model.cuda_graph_scope=[attn,mlp]
#   model.cuda_graph_warmup_steps=3 model.use_te_rng_tracker=true rng.te_rng_tracker=true
#
# Checks: leave recompute_granularity unset (full recompute is refused with TE scoped graphs),
# no CPU offloading, and after the warmup steps the log should show
# "Rank N: K graphable layers." with K > 0 on every pipeline stage.
