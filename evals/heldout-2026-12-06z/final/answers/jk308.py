# Debug plan for the NaN with TE `attn` graphs + EP overlap (Qwen3-235B, TP2 PP8 VPP4 EP8),
# written as Bridge overrides you can toggle one at a time. Run each variant for ~150 steps
# with the same seed and compare the loss / grad-norm curves against the eager baseline.

from megatron.bridge.training.config import ConfigContainer


def baseline_eager(cfg: ConfigContainer) -> None:
    """Reference run: identical config, graphs off."""
    cfg.model.cuda_graph_impl = "none"
    cfg.model.cuda_graph_modules = []


def graphs_attn(cfg: ConfigContainer) -> None:
    """The failing run, made reproducible and inspectable."""
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.cuda_graph_scope = None           # don't let a stock recipe value collide (0.18+)
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    cfg.rng.seed = 1234
    # The NaN/Inf checks do a device->host sync every step; with graphs that sync point is
    # where the replayed and eager streams get re-ordered, so turn them off while bisecting
    # and watch grad norm in the log instead.
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    cfg.logger.log_interval = 1


def graphs_attn_no_ep_overlap(cfg: ConfigContainer) -> None:
    """If this is clean, it's the TE partial-graph x EP-overlap schedule (Megatron-LM#5966)."""
    graphs_attn(cfg)
    cfg.model.overlap_moe_expert_parallel_comm = False
    cfg.model.delay_wgrad_compute = False


def graphs_attn_no_vpp(cfg: ConfigContainer) -> None:
    """Checks TE graph/parameter ordering under interleaved 1F1B (TE PRs #1138, #1233)."""
    graphs_attn(cfg)
    cfg.model.virtual_pipeline_model_parallel_size = None


# Other known replay-numerics causes to rule out:
#  * fuse_wgrad_accumulation not toggled on replay (TE PR #1204) -> keep
#    gradient_accumulation_fusion=True if you use delay_wgrad_compute.
#  * validation replaying the training graphs (MLM PR #6992) -> does the spike follow an eval?
#
# Before any of this: upgrade TE + megatron-core (+ Bridge) to the latest matched release and
# re-run baseline_eager vs graphs_attn; several of the above are fixed there. Until the A/B is
# clean on the new stack, train this combination with graphs off.
