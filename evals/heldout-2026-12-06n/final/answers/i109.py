"""Full-iteration CUDA graph for megatron-core 0.19 + Megatron Bridge.

One graph covers forward+backward of the whole training iteration (optimizer excluded).
"""
from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graphs(cfg: ConfigContainer) -> ConfigContainer:
    # 0.18+ spelling: the impl itself is "full_iteration"; the per-layer list must be EMPTY.
    # (mcore asserts: cuda_graph_modules must be empty when cuda_graph_impl="full_iteration")
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_modules = []
    cfg.model.cuda_graph_warmup_steps = 3

    # The captured region may not contain CPU<->GPU syncs. The NaN checks call .item()
    # on loss / grad norms, i.e. host syncs, so both must be off.
    # (Bridge asserts on the loss check; Megatron-LM CLI equivalent: --no-check-for-nan-in-loss-and-grad)
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # graph-safe RNG
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # Static shapes: fixed seq_length and micro_batch_size for the whole run.
    # Also don't pair this with overlapping param all-gather with the optimizer step.
    return cfg


# Benchmark note: the first 3 iterations run eagerly, then capture happens; compare
# step time from well after capture with an eager run over the same window.
