"""Graphs + activation memory savings for a 70B dense model.

Why the assert fires
--------------------
recompute_granularity="full" re-runs whole transformer layers in backward. A per-layer
TE graph (your `attn` scope) would then sit *inside* the recomputed region, which MCore
does not allow: a recompute region may not wrap a graphed region. The only graph mode
that coexists with layer-level full recompute is the full-iteration graph, hence
"full recompute is only supported with full iteration CUDA graph."
(recompute_method / recompute_num_layers don't matter: any granularity other than
"selective" trips it.)

Two ways out; pick one, then re-check memory and A/B against eager on post-capture
iterations (never the capture step).
"""

import megatron.core

_MAJOR_MINOR = tuple(int(x) for x in megatron.core.__version__.split(".")[:2])
NEW_API = _MAJOR_MINOR >= (0, 18)   # cuda_graph_modules / impl="full_iteration" exist from 0.18


def _rng(cfg):
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True


def option_a_selective_recompute_with_te_attn(cfg):
    """Keep TE graphs on attention; recompute only modules that lie OUTSIDE the graph.

    Saves less memory than full recompute: check that it still fits.
    """
    m = cfg.model
    m.recompute_granularity = "selective"
    m.recompute_method = None          # must be None for selective
    m.recompute_num_layers = None      # must be None for selective
    # Recompute the MLP (outside the graphed attention). Do NOT leave the default
    # ["core_attn"]: that recomputes inside the graphed attention, and with
    # attention_dropout > 0 it asserts ("attention dropout is not supported with graphed
    # attention recomputation.").
    m.recompute_modules = ["mlp"]

    m.cuda_graph_impl = "transformer_engine"
    if NEW_API:
        m.cuda_graph_scope = None
        m.cuda_graph_modules = ["attn"]
    else:
        m.cuda_graph_scope = ["attn"]
    m.cuda_graph_warmup_steps = 3
    _rng(cfg)
    return cfg


def option_b_full_iteration_keep_full_recompute(cfg):
    """Keep recompute_granularity="full" and capture the whole iteration instead.

    Dense models only; static shapes; you lose the NaN checks; full-iteration graphs
    also hold more static memory, so verify headroom on the 70B layout (worse with PP).
    """
    m = cfg.model
    # leave m.recompute_granularity = "full", recompute_method="uniform", recompute_num_layers=1
    if NEW_API:
        m.cuda_graph_impl = "full_iteration"
        m.cuda_graph_scope = None
        m.cuda_graph_modules = []      # must be empty with full_iteration
    else:
        m.cuda_graph_impl = "local"    # 0.16-0.17 spelling of full iteration
        m.cuda_graph_scope = ["full_iteration"]
    m.cuda_graph_warmup_steps = 3
    _rng(cfg)
    # host syncs are illegal inside the captured iteration
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False
    return cfg


# If neither fits in memory, the honest answer is: keep full recompute and run without graphs.
# At 70B the step is usually compute-bound, so profile first; graphs may buy little here.
