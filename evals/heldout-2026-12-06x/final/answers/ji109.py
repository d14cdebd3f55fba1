"""Full-iteration CUDA graph for a Megatron Bridge run on megatron-core 0.19.

One graph covers the whole forward+backward of the training step (the optimizer step stays
eager). Call `enable_full_iteration_graph(cfg)` on the ConfigContainer your recipe returns,
before `pretrain(cfg, forward_step)`.
"""

from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer) -> ConfigContainer:
    m = cfg.model

    # 0.18+ spelling. (0.16/0.17 used cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"].)
    m.cuda_graph_impl = "full_iteration"
    m.cuda_graph_scope = None  # stock recipes set "full"; don't leave the deprecated key around

    # The iteration graph is stitched together from the per-layer graphable regions, so keep
    # the module list populated: it tells the capture which submodules are graph-safe.
    # Dense model -> attention + MLP.
    m.cuda_graph_modules = ["attn", "mlp"]

    m.cuda_graph_warmup_steps = 3  # eager steps before capture (lazy init must happen first)

    # Graph-safe RNG (required for any CUDA graph in Bridge).
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # The NaN checks call .item() on the loss / grad norm -> host sync, illegal inside a
    # captured iteration. Bridge asserts on the loss check.
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # The next param all-gather would be issued outside the captured region.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    return cfg


# Notes
# - Shapes must be static: fixed seq_length and micro-batch size, no unpadded packing.
# - Dense models only in practice: dropless MoE dispatch syncs with the host and fails at capture.
# - Expect "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!" in
#   the log; time iterations after the capture step against an eager run.
# - Memory goes up (static buffers for the whole iteration); check headroom first.
