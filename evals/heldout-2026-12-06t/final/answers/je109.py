# full_iteration_graph.py
#
# Full-iteration CUDA graph (one graph for forward+backward of the whole training step,
# optimizer step excluded) for a Megatron Bridge recipe on megatron-core 0.19.
#
# On 0.18+ full iteration is its own implementation: cuda_graph_impl="full_iteration" with an
# EMPTY cuda_graph_modules. (The 0.16/0.17 spelling local + cuda_graph_scope=["full_iteration"]
# is still migrated with a DeprecationWarning, but write the new keys.)

from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_cuda_graph(cfg: ConfigContainer) -> ConfigContainer:
    m = cfg.model

    m.cuda_graph_impl = "full_iteration"
    m.cuda_graph_scope = None      # stock recipes set "full" or a list; drop the deprecated key
    m.cuda_graph_modules = []      # must be empty: 'cuda_graph_modules must be empty when
                                   # cuda_graph_impl="full_iteration".'
    m.cuda_graph_warmup_steps = 3  # iters 1-3 eager, capture in iter 4, replay from iter 5

    # Graph-safe RNG (required for any CUDA graph in Bridge).
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # The NaN checks read the loss / grad norm back to the host (a CPU-GPU sync), which
    # cannot happen inside a captured graph. Bridge refuses to start otherwise:
    # "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    return cfg


# Equivalent helper shipped with Bridge (writes the right keys for the installed core):
#     from megatron.bridge.utils.cuda_graph import set_full_iteration_cuda_graph
#     set_full_iteration_cuda_graph(cfg.model)
# It only sets impl/modules; you still need the RNG and NaN-check lines above.
#
# Before you rely on it:
#   * Shapes must be fully static: fixed seq_length and micro-batch size, no unpadded packing.
#   * Dense models only in practice. Dropless MoE dispatch syncs with the host and fails at
#     capture; use TE per-layer graphs (attn / moe_router / moe_preprocess) there.
#   * Memory goes up (the graph pool stays resident). A run that barely fits eagerly can OOM.
#   * With the NaN checks off you lose automatic NaN detection, so watch loss and grad norm
#     in the logs yourself.
#   * The optimizer step still runs eagerly (optimizer_cuda_graph is a separate, experimental
#     option).
#   * Measure replay iterations (5+) against an eager run with the same seed. Leave out the
#     capture iteration, which takes seconds.
