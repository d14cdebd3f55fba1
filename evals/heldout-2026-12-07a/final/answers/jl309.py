"""Debug recipe variants for the Qwen3-235B NaN-with-CUDA-graphs problem.

Setup: TP2 PP8 VPP4 EP8, overlap_moe_expert_parallel_comm=True,
cuda_graph_impl="transformer_engine", modules=["attn"].
Symptom: grad norm explodes -> NaN around iter 90; graphs off = healthy.

How to read it: graphs must not change the math. With a fixed seed and data order,
a graphed run tracks eager step for step (bf16 noise). A run that diverges is
replaying stale or misordered buffers, or is interleaved wrongly with a schedule.
This matches Megatron-LM#5966 (Qwen3-235B, TE attn graphs + EP overlap, NaN at ~91,
still open).

Use the variants one at a time, same seed, ~120 iterations, log_interval=1,
and compare loss / grad-norm curves against EAGER.
"""

from megatron.bridge.recipes.qwen.h100.qwen3_moe import (
    qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config as base_recipe,
)


def _common(cfg):
    cfg.train.train_iters = 120
    cfg.rng.seed = 1234
    cfg.logger.log_interval = 1
    # Keep the NaN checks on. With TE-scoped graphs they run outside the captured
    # region, and they're what stops a diverging run early.
    cfg.rerun_state_machine.check_for_nan_in_loss = True
    cfg.ddp.check_for_nan_in_grad = True
    return cfg


def _graphs(cfg, modules):
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # recipe sets "full"; 0.18+ asserts if both are set
    cfg.model.cuda_graph_modules = modules
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


def EAGER():
    cfg = _common(base_recipe())
    cfg.model.cuda_graph_impl = "none"
    return cfg


def REPRO():
    """Your config. Find the first step where it departs from EAGER."""
    return _graphs(_common(base_recipe()), ["attn"])


def MOE_BLOCK():
    """Keep EP overlap, but graph the MoE block instead of attention.

    Under overlap_moe_expert_parallel_comm the scheduler splits each layer into
    attn / dispatch / mlp / combine chunks and interleaves two micro-batches. A
    graphed attention chunk replays between those chunks; capturing the whole MoE
    block as one unit keeps the dispatch->experts->combine order fixed inside the
    graph. If this run is clean, the attn/EP-overlap interleave is the culprit.
    """
    return _graphs(_common(base_recipe()), ["moe"])


def NO_EP_OVERLAP():
    """Same attn graphs, EP overlap off. Clean => #5966-style interleaving bug."""
    cfg = _graphs(_common(base_recipe()), ["attn"])
    cfg.model.overlap_moe_expert_parallel_comm = False
    cfg.model.delay_wgrad_compute = False      # requires EP overlap
    if cfg.comm_overlap is not None:
        cfg.comm_overlap.overlap_moe_expert_parallel_comm = False
        cfg.comm_overlap.delay_wgrad_compute = False
    return cfg


# Other replay-numerics causes to rule out (upgrade TE + megatron-core first):
#   - TE parameter order under PP 1F1B with VPP (Megatron-LM#422; TE PRs #1138/#1233).
#     PP8/VPP4 makes an old TE suspect.
#   - fuse_wgrad_accumulation flags not toggled on replay (TE PR #1204): keep
#     gradient_accumulation_fusion=True.
#   - validation replaying training graphs (Megatron-LM PR #6992), if the first bad
#     step follows an eval.
#
# Decision: REPRO vs EAGER confirms it; NO_EP_OVERLAP / MOE_BLOCK localise it.
# After upgrading, rerun REPRO and overlay curves. Until it matches eager, run
# this model without attn graphs while EP overlap is on.
