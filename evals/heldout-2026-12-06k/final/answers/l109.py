"""Full-iteration CUDA graph for megatron-core 0.19 + Megatron Bridge.

One graph covers forward + backward of the whole training iteration (the
optimizer step stays eager). On 0.18+ this is its own implementation,
cuda_graph_impl="full_iteration"; the old local + ["full_iteration"] scope
spelling is only for 0.16/0.17.
"""
from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer) -> ConfigContainer:
    m = cfg.model
    m.cuda_graph_impl = "full_iteration"
    m.cuda_graph_modules = []          # must be empty with full_iteration (asserted)
    m.cuda_graph_warmup_steps = 3

    # graph-safe RNG
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # A single captured iteration cannot contain CPU<->GPU syncs. The NaN checks
    # read the loss / grad norm back to the host every step, so turn them off.
    # Bridge asserts on the loss check; MLM's equivalent is
    # --no-check-for-nan-in-loss-and-grad.
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


# Also required at runtime:
#  - static shapes: fixed seq_length and micro_batch_size, no variable-length batches
#    (packed SFT needs pad_to_max_length=True and pad_cu_seqlens=True)
#  - no other host-syncing code in forward/backward (e.g. custom logging that calls .item())
#  - benchmark post-capture replay iterations against eager, never the capture step
