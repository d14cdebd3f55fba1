"""A/B harness for the Qwen3-235B NaN-after-graphs problem (Megatron Bridge).

Plan, in order:
  1. Same seed, same data order, same starting checkpoint: eager vs. TE `attn` graphs.
     If only the graphed run diverges, it's a replay-numerics bug, not your LR/data.
  2. Narrow: graphs on but EP overlap off. Your exact combo (Qwen3-235B, TE `attn`
     graphs + overlap_moe_expert_parallel_comm, NaN ~iter 90) is Megatron-LM#5966,
     still open, so this is the most likely culprit.
  3. Upgrade TE + megatron-core (matching container) and repeat 1-2, comparing the
     loss / grad-norm curves step by step, not just the final value.
  4. If the graphed run still diverges after upgrading: ship with graphs off for this
     combination (or EP overlap off), and attach both curves to #5966.

Other known replay-numerics causes to rule out against your TE/MCore versions:
  - TE graph parameter order under PP 1F1B / interleaving (TE PRs #1138, #1233;
    Megatron-LM#422) -> matters for you with PP8 VPP4.
  - wgrad-accumulation (fuse_wgrad_accumulation) flags not toggled on replay (TE PR #1204):
    keep gradient_accumulation_fusion=True; with delay_wgrad_compute + graphed attn,
    Megatron-LM even asserts it (unfused accumulation doesn't use static addresses).
  - validation replaying the training graphs (Megatron-LM PR #6992) -> try eval off.
  - FSDP hooks captured in the wrong phase (TE PR #2831) -> only with Megatron-FSDP.
"""

from megatron.bridge.recipes.qwen.h100.qwen3_moe import (  # use the recipe you actually run
    qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config as base_recipe,
)

SEED = 1234
ITERS = 150  # comfortably past the ~90 where it blew up


def _common(cfg):
    cfg.rng.seed = SEED
    cfg.train.train_iters = ITERS
    cfg.logger.log_interval = 1          # per-iteration loss + grad norm for the curve diff
    cfg.logger.log_params_norm = True
    # Keep the NaN/Inf detectors ON. With TE-scoped graphs they run outside the captured
    # region (only full-iteration graphs require turning them off), and they are what stops
    # a diverging run before it writes NaN checkpoints.
    cfg.rerun_state_machine.check_for_nan_in_loss = True
    cfg.ddp.check_for_nan_in_grad = True
    # Keep fused wgrad accumulation: it writes into persistent main_grad buffers that the
    # graphs can safely replay against.
    cfg.model.gradient_accumulation_fusion = True
    # Same TP2 PP8 VPP4 EP8 layout in every variant so only one thing changes per run.
    cfg.model.tensor_model_parallel_size = 2
    cfg.model.pipeline_model_parallel_size = 8
    cfg.model.virtual_pipeline_model_parallel_size = 4
    cfg.model.expert_model_parallel_size = 8
    return cfg


def eager():
    cfg = _common(base_recipe())
    cfg.model.cuda_graph_impl = "none"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = []
    cfg.model.overlap_moe_expert_parallel_comm = True
    return cfg


def graphs_attn_ep_overlap():
    """The failing configuration, reproduced with fixed seed."""
    cfg = _common(base_recipe())
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None          # recipes may set the old key; 0.18+ asserts if both are set
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    cfg.model.overlap_moe_expert_parallel_comm = True
    return cfg


def graphs_attn_no_ep_overlap():
    """Narrowing step: same graphs, EP overlap off (delay_wgrad_compute needs EP overlap, so off too)."""
    cfg = graphs_attn_ep_overlap()
    cfg.model.overlap_moe_expert_parallel_comm = False
    cfg.model.delay_wgrad_compute = False
    return cfg


VARIANTS = {
    "eager": eager,
    "te_attn_ep_overlap": graphs_attn_ep_overlap,
    "te_attn_no_ep_overlap": graphs_attn_no_ep_overlap,
}

# How to read the result:
#   eager clean, te_attn_ep_overlap NaN, te_attn_no_ep_overlap clean
#       -> graphs x EP-overlap interleaving (#5966). Pick one of the two for now.
#   te_attn_no_ep_overlap also diverges
#       -> look at PP/VPP parameter order and wgrad flags; upgrade TE/MCore first.
#   curves already differ right after the capture iteration (iteration 4)
#       -> stale / misordered static buffers rather than a slow numerical drift.
#   eager also NaNs
#       -> not a CUDA-graph problem; debug LR, data, precision against eager.
