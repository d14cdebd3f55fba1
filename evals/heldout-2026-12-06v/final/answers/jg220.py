# Fix for:
#   AssertionError: check_for_nan_in_loss must be disabled when using full_iteration CUDA graph.
#
# Cause: the full-iteration graph captures forward+backward as one graph, and the
# NaN checks pull the loss / grad norm back to the CPU every step. A host sync
# inside a capture is illegal, so Bridge refuses the config up front.
#
# Drop this into your recipe override (Bridge ConfigContainer).

from megatron.bridge.training.config import ConfigContainer


def fix_full_iteration_nan_assert(cfg: ConfigContainer) -> ConfigContainer:
    # 1) the actual fix: both NaN checks off (loss and grad both sync to host)
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # 2) while you're here: `local` + cuda_graph_scope=["full_iteration"] is the
    #    legacy spelling of the full-iteration graph. Use the dedicated impl, so the
    #    scope list goes back to meaning per-layer modules only and future
    #    upgrades don't trip the deprecation path.
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = []

    # 3) graphs need TE's RNG tracker
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Megatron-LM equivalent:
#   --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker
#
# Verify: log shows "Capture CUDA graph for training!!!" then
# "CUDA graph capture done for training!!!", and steady-state step time drops vs eager.
