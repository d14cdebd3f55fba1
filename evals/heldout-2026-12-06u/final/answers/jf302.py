# Fix for: cudaErrorStreamCaptureIsolation right after iteration 3 on all ranks
# (Bridge, distributed optimizer, full-iteration CUDA graph,
#  perf override overlap_param_gather_with_optimizer_step=True)
#
# What happens
# ------------
# Iterations 1-3 are the eager warmup (cuda_graph_warmup_steps=3); iteration 4 is captured.
# With overlap_param_gather_with_optimizer_step=True the distributed optimizer kicks off the
# first bucket's parameter all-gather at the END of optimizer.step()
# (ChainedOptimizer._step -> start_param_sync(force_dispatch=True)). The optimizer step is not
# part of the full-iteration graph, so that all-gather is enqueued outside the capture. The
# captured forward then waits on it -> "dependency created on uncaptured work in another
# stream" (cudaErrorStreamCaptureIsolation). Same failure on every rank, same iteration.
# Bridge PR #5788 guards exactly this combination when is_full_iteration_cuda_graph() is true;
# if your Bridge predates it, turn it off yourself:

def fix_full_iteration_param_gather(cfg):
    """Apply after the perf overrides (they are what turned the flag on)."""
    # The culprit. It is an OptimizerConfig field; Bridge's comm_overlap section is applied
    # onto the optimizer config, so clear it in both places or the override comes back.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False
    if cfg.comm_overlap is not None:
        cfg.comm_overlap.overlap_param_gather_with_optimizer_step = False

    # Plain param-gather overlap is fine: the gather is then issued by the forward pre-hook,
    # i.e. inside the captured iteration.
    cfg.ddp.overlap_param_gather = True

    # The rest of a valid 0.18+/0.19 full-iteration setup, for reference
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = None          # perf recipes may set the old key; don't set both
    cfg.model.cuda_graph_modules = []
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


# Colleague on Megatron-FSDP, capture dies in wait_bucket_ready
# --------------------------------------------------------------
# Same root cause: FSDP's start_param_sync() runs in the optimizer step (outside the graph) and
# by default issues the first all-gather there; the captured forward then waits on it in
# wait_bucket_ready. Megatron-LM's own loop sets these for you (training.py: graph mode whenever
# graphs are on, the all-gather switch for full iteration; MLM PRs #4663 / #7282); in Bridge set
# them explicitly:

def fix_megatron_fsdp_full_iteration(cfg):
    cfg.ddp.use_megatron_fsdp = True
    cfg.ddp.megatron_fsdp_cuda_graph_mode = True          # graph-safe FSDP (keeps grad/param refs stable for replay)
    cfg.ddp.fsdp_all_gather_in_start_param_sync = False   # don't issue the first AG outside the capture
    return cfg

# If they run TE per-layer graphs (cuda_graph_impl="transformer_engine") with FSDP instead of
# full iteration, the FSDP pre/post hooks must be run as capture-time hooks (MLM PR #4232,
# TE PR #2831): upgrade MCore and TE rather than patching around it.
#
# Check after relaunch: "Capture CUDA graph for training!!!" then
# "CUDA graph capture done for training!!!", and no isolation error on iteration 4.
