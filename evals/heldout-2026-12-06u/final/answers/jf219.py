"""Fix for:

    [rank0]: AssertionError: check_for_nan_in_loss must be disabled when using full_iteration
    CUDA graph. Set rerun_state_machine.check_for_nan_in_loss=False.

Cause: with cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"] the whole
forward/backward (including the grad reduction) is captured as one CUDA graph. The NaN checks
read a value back to the host (a CPU-GPU sync: the loss check in the rerun state machine, the
grad check in DDP's grad sync), and a host sync can't be recorded in a graph. Bridge's
ConfigContainer.validate() refuses the combination up front; that's the assert you see.

Fix: turn both NaN checks off and keep everything else. On megatron-core 0.16 the full-iteration
graph is still spelled local + ["full_iteration"]; there is no cuda_graph_impl="full_iteration"
value in that release (it arrives in 0.18), so don't change the graph keys.
"""


def apply_full_iteration_graph_016(cfg):
    # graph settings: unchanged, 0.16 spelling
    cfg.model.cuda_graph_impl = "local"
    cfg.model.cuda_graph_scope = ["full_iteration"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # the fix: both NaN checks off (they sync with the host inside the captured iteration)
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


# Hydra-style equivalent:
#   rerun_state_machine.check_for_nan_in_loss=false ddp.check_for_nan_in_grad=false
# Megatron-LM (pretrain_gpt.py) equivalent: --no-check-for-nan-in-loss-and-grad
#
# What you give up: no automatic stop/rerun on a NaN loss or NaN grads. Watch the logged loss and
# grad norm yourself (or keep a short eager run with the checks on when debugging divergence).
#
# Heads-up for Megatron-LM's own loop on 0.16 (not Bridge): local + full_iteration can fail at
# capture because get_batch broadcasts cu_seqlens from a pageable host tensor inside the graph
# ("Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU tensor is
# pinned"). If you hit that, use TE per-layer graphs there or move to 0.18+.
#
# After the change: the log should show capture once after the warm-up iterations
# ("Capture CUDA graph for training" / "CUDA graph capture done"), then compare steady-state
# step time and loss against an eager run with the same seed.
