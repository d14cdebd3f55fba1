# nan_bisect.py -- bisect the iter-90 NaN (Qwen3-235B, TP2 PP8 VPP4 EP8, EP overlap, TE attn graphs)
#
# Plan: same seed and data for every variant, change ONE thing at a time, compare the
# per-step loss / grad-norm curves against the graphs-off baseline. Your symptom (grad norm
# explodes, NaN ~iter 90, gone without graphs) matches Megatron-LM#5966 (open: TE attn graphs
# + overlap_moe_expert_parallel_comm on Qwen3-235B). The other known replay-numerics causes to
# keep in mind: PP 1F1B parameter ordering with TE graphs (TE PRs #1138/#1233), wgrad-
# accumulation flags not toggled on replay (TE PR #1204, so keep gradient_accumulation_fusion
# on with delayed wgrad), validation replaying training graphs (Megatron-LM PR #6992; check
# whether an eval ran just before iter 90).
#
# Usage: build your normal recipe config, then
#   for v in VARIANTS: cfg = make_variant(base_cfg(), v); pretrain(cfg, forward_step)
# and diff the logs (skill-tools logs base.log variant.log gives the loss comparison too).

import copy

SEED = 1234
ITERS = 150  # comfortably past the ~90 where it blows up


def _common(cfg):
    cfg.rng.seed = SEED
    cfg.train.train_iters = ITERS
    cfg.logger.log_interval = 1  # one line per step: loss + grad norm for every iteration
    # Keep NaN checks ON. With TE per-layer graphs they run outside the captured region and
    # are what stops the run at the first bad step (only full-iteration graphs need them off).
    cfg.rerun_state_machine.check_for_nan_in_loss = True
    cfg.ddp.check_for_nan_in_grad = True
    return cfg


def _graphs(cfg, modules):
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # 0.18+: never together with cuda_graph_modules
    cfg.model.cuda_graph_modules = list(modules)
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


def make_variant(base, name):
    cfg = _common(copy.deepcopy(base))
    if name == "A_graphs_off":
        cfg.model.cuda_graph_impl = "none"
    elif name == "B_attn_ep_overlap":          # your failing config, reproduced under the fixed seed
        _graphs(cfg, ["attn"])
    elif name == "C_attn_no_ep_overlap":
        _graphs(cfg, ["attn"])
        cfg.comm_overlap.overlap_moe_expert_parallel_comm = False
        # delayed wgrad requires EP overlap (MCore asserts), so it goes too
        cfg.comm_overlap.delay_wgrad_compute = False
    elif name == "D_router_ep_overlap":
        # moe/mlp scopes are refused with EP overlap + TE impl; router+preprocess is the legal MoE-side scope
        _graphs(cfg, ["moe_router", "moe_preprocess"])
    else:
        raise ValueError(name)
    return cfg


VARIANTS = ["A_graphs_off", "B_attn_ep_overlap", "C_attn_no_ep_overlap", "D_router_ep_overlap"]

# Reading the results:
#   B diverges, A/C/D match A to bf16 noise  -> attn graphs x EP-overlap schedule (#5966).
#                                              Run D (or no graphs) in production; add your
#                                              repro to #5966.
#   C diverges too                           -> not the overlap; suspect TE param order / wgrad
#                                              flags (old TE with PP+VPP): upgrade TE + MCore.
#   A also NaNs                              -> not graphs at all; debug LR/data/precision.
# Whatever the outcome, upgrade TE/MCore to the latest matching pair and repeat A vs B before
# turning attn graphs back on. Compare whole loss curves, not just "no NaN".
