"""Full-iteration CUDA graph for a Bridge recipe on megatron-core 0.19.

One graph covers the whole forward+backward of the training step (optimizer step stays
eager). Apply with `enable_full_iteration_graph(cfg)` before `pretrain(cfg, forward_step)`.
"""

from typing import Final

# --- graph -------------------------------------------------------------------------------
CUDA_GRAPH_IMPL: Final[str] = "full_iteration"          # 0.18+ value (0.16-0.17: "local" + ["full_iteration"])
# Per-layer modules still matter inside the full-iteration graph: they tell MCore which layer
# regions get static input/output buffers, so listing the hot layer parts gives the tightest
# replay. Use [] only if you want the whole layer treated as one region.
CUDA_GRAPH_MODULES: Final[list] = ["attn", "mlp"]
CUDA_GRAPH_WARMUP_STEPS: Final[int] = 3                  # eager steps before capture

# --- things that cannot live inside a captured iteration ----------------------------------
CHECK_NAN_IN_LOSS: Final[bool] = False                  # the loss NaN check syncs with the host
CHECK_NAN_IN_GRAD: Final[bool] = False                  # same for the gradient NaN check

# --- RNG ----------------------------------------------------------------------------------
TE_RNG_TRACKER: Final[bool] = True                      # graph-safe RNG, required


def enable_full_iteration_graph(cfg):
    m = cfg.model
    m.cuda_graph_impl = CUDA_GRAPH_IMPL
    m.cuda_graph_scope = None                            # stock recipes set "full"/a list; don't carry the legacy key
    m.cuda_graph_modules = list(CUDA_GRAPH_MODULES)
    m.cuda_graph_warmup_steps = CUDA_GRAPH_WARMUP_STEPS
    m.use_te_rng_tracker = TE_RNG_TRACKER
    cfg.rng.te_rng_tracker = TE_RNG_TRACKER
    cfg.rerun_state_machine.check_for_nan_in_loss = CHECK_NAN_IN_LOSS
    cfg.ddp.check_for_nan_in_grad = CHECK_NAN_IN_GRAD
    return cfg


# Notes
# * Static shapes: fixed seq_length and micro_batch_size, no unpadded packing.
# * Leave overlap_param_gather_with_optimizer_step off with this graph.
# * Expect more resident memory than per-layer graphs (the whole iteration's pool).
# * Log evidence: "Capture CUDA graph for training!!!" then "CUDA graph capture done for
#   training!!!"; compare steady-state replay steps with eager, not the capture step.
# * Megatron-LM CLI equivalent: --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad
