"""graph_safe_overlap.py - post-process a Megatron Bridge ConfigContainer so a
full-iteration CUDA graph run survives capture.

Why your run dies after iteration 3 with cudaErrorStreamCaptureIsolation:
  * cuda_graph_warmup_steps=3 -> iterations 1-3 are eager, capture starts on the next one.
  * overlap_param_gather_with_optimizer_step=True makes the (eager, uncaptured) optimizer
    step dispatch the next param all-gather (ChainedOptimizer._step ->
    start_param_sync(force_dispatch=True)). The captured forward then waits on that
    handle -> "dependency created on uncaptured work in another stream" on all 64 ranks.
  * Your colleague's Megatron-FSDP failure in wait_bucket_ready is the same thing: the
    FSDP bucket all-gather is waited on inside the graph but was not issued inside it.

Usage (in your recipe / launch script, after the perf overrides are applied):

    from graph_safe_overlap import make_full_iteration_graph_safe
    cfg = make_full_iteration_graph_safe(cfg)
"""

from megatron.bridge.utils.cuda_graph import is_full_iteration_cuda_graph


def make_full_iteration_graph_safe(cfg):
    if not is_full_iteration_cuda_graph(cfg.model):
        return cfg

    # 1) Distributed optimizer: no param all-gather dispatched by the optimizer step.
    #    It is an OptimizerConfig field; the perf helper also mirrors it into comm_overlap.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False
    if cfg.comm_overlap is not None:
        cfg.comm_overlap.overlap_param_gather_with_optimizer_step = False
    # Plain overlap_param_gather stays on: it is dispatched from the forward pre-hooks.

    # 2) Megatron-FSDP (your colleague): graph-safe mode.
    if getattr(cfg.ddp, "use_megatron_fsdp", False):
        cfg.ddp.megatron_fsdp_cuda_graph_mode = True
        # Keep the all-gather in start_param_sync so every bucket is already gathered
        # when capture begins and wait_bucket_ready has nothing pending to wait for.
        cfg.ddp.fsdp_all_gather_in_start_param_sync = True

    # 3) Full-iteration companions (the NaN checks sync with the host).
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # Self-check so a later override cannot silently re-enable the optimizer-step overlap.
    assert not cfg.optimizer.overlap_param_gather_with_optimizer_step
    return cfg


# Notes
# - Newer Bridge (PR #5788, for issue #1688) guards this combination itself; this hook
#   makes older builds safe too.
# - With TE per-layer graphs + Megatron-FSDP, upgrade MCore/TE so the FSDP hooks run at
#   capture time (capture_time_hooks: Megatron-LM PR #4232, TransformerEngine PR #2831).
# - After the fix, confirm "CUDA graph capture done for training!!!" in the log and compare
#   steady-state step time against eager (exclude the capture iteration).
