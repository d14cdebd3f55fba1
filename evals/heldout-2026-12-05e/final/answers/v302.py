"""Perf override for the 64xB200 full-iteration run that dies with
cudaErrorStreamCaptureIsolation after iteration 3.

Why it breaks
-------------
With ``overlap_param_gather_with_optimizer_step=True`` the first param
all-gather of the *next* iteration is launched by the optimizer step
(``ChainedOptimizer._step`` -> ``start_param_sync(force_dispatch=True)``).
The optimizer step is not part of the full-iteration graph, so that
all-gather is enqueued outside capture. The captured forward then waits on
its handle: a dependency on uncaptured work -> cudaErrorStreamCaptureIsolation.
It shows up right after the 3 eager warmup steps (cuda_graph_warmup_steps=3),
at the capture step. Newer Bridge (PR #5788) turns this option off by itself
when is_full_iteration_cuda_graph() is true.

Megatron-FSDP hits the same pattern in ``wait_bucket_ready``: its prefetch is
issued outside the graph and awaited inside it.
"""

from megatron.bridge.training.config import ConfigContainer


def fix_full_iteration_overlap(cfg: ConfigContainer) -> ConfigContainer:
    # 1) Distributed optimizer: do not launch the param AG from the optimizer step.
    #    The perf helper sets it in both places, so clear both.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False
    if cfg.comm_overlap is not None:
        cfg.comm_overlap.overlap_param_gather_with_optimizer_step = False

    # Plain param-gather / grad-reduce overlap is fine: the AG is then launched
    # from the forward pre-hook, i.e. inside the captured region.
    cfg.ddp.overlap_param_gather = True
    cfg.ddp.overlap_grad_reduce = True

    # 2) Megatron-FSDP (colleague's run).
    if getattr(cfg.ddp, "use_megatron_fsdp", False):
        cfg.ddp.megatron_fsdp_cuda_graph_mode = True
        # Keep the first all-gather in start_param_sync(): it is then issued
        # before the captured forward begins, which gives wait_bucket_ready a
        # completed handle to wait on instead of an in-flight one.
        cfg.ddp.fsdp_all_gather_in_start_param_sync = True
        # With TE partial graphs + FSDP you additionally need the FSDP hooks
        # registered as capture_time_hooks (MLM PR #4232, TE PR #2831): upgrade
        # MCore and TE together.

    # Graph settings stay as they are (0.18+ spelling).
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = []
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


# Verify after the change: the log should show
#   "Capture CUDA graph for training!!!" followed by
#   "CUDA graph capture done for training!!!"
# then compare steady-state step time and loss against an eager run with the same seed.
