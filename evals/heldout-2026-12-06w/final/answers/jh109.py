"""Full-iteration CUDA graph for a Megatron Bridge recipe (megatron-core 0.19).

One graph covers the whole forward+backward of the training step (the optimizer step
stays eager). This is the largest launch-overhead cut, and also the strictest mode.

Usage:
    cfg = my_recipe_config()
    enable_full_iteration_graph(cfg)
    pretrain(cfg, forward_step)
"""

from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer, warmup_steps: int = 3) -> ConfigContainer:
    m = cfg.model

    # 0.18+ spelling. (0.16/0.17 had no "full_iteration" impl and spelled this
    # cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"].)
    m.cuda_graph_impl = "full_iteration"
    # Full iteration takes no module list: MCore asserts
    # 'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
    m.cuda_graph_modules = []
    # Stock recipes set cuda_graph_scope ("full" or a list); clear it so nothing is migrated
    # into cuda_graph_modules.
    m.cuda_graph_scope = None
    m.cuda_graph_warmup_steps = warmup_steps  # eager steps before capture; keep >= 1

    # Any CUDA graph needs Transformer Engine's graph-safe RNG tracker.
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # The NaN checks synchronize with the host (.item() on the loss / grad norm), which cannot
    # happen inside a captured iteration. Bridge asserts the loss check is off for full iteration;
    # the grad check (on in the stock recipes) must go too.
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # Leave optimizer.overlap_param_gather_with_optimizer_step off (its default): it issues the
    # next param gather outside the captured region, which breaks capture.
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False

    return cfg


# Things the config can't enforce for you:
# - Static shapes: fixed seq_length and micro_batch_size; no variable-length or unpadded packed
#   batches (with offline packing: dataset.pad_to_max_length=True and padded cu_seqlens).
# - Dropless MoE cannot be captured this way (token counts go to the host in the dispatcher);
#   use TE per-layer graphs (attn, moe_router, moe_preprocess) for those models.
# - Memory: the graph's static buffers stay resident; a run that just fits eagerly may OOM.
# - In the log expect "Capture CUDA graph for training!!!" then "CUDA graph capture done for
#   training!!!" after the warmup steps. Time only the iterations after that one, against an
#   eager run with the same seed, and check the losses match.
