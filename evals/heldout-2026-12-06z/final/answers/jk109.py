"""Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.19.

One graph covers the whole forward+backward of the training step. The optimizer
step stays eager. Uses the 0.18+ spelling: cuda_graph_impl="full_iteration" and an
empty cuda_graph_modules.
"""

from megatron.bridge.training.config import ConfigContainer


def enable_full_iteration_graph(cfg: ConfigContainer) -> ConfigContainer:
    m = cfg.model

    # 0.18+: full iteration is its own impl. Per-layer modules must be empty.
    m.cuda_graph_impl = "full_iteration"
    m.cuda_graph_modules = []
    m.cuda_graph_scope = None          # recipes may still set the deprecated key
    m.cuda_graph_warmup_steps = 3      # eager steps before capture

    # Graph-safe RNG
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # The NaN checks call .item() on the loss/grad norm, which is a host sync and can't be
    # inside a captured region. Bridge asserts on the loss check; turn both off.
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # Static shapes: fixed seq_length and micro_batch_size for the whole run;
    # if you pack sequences, pad them (dataset pad_to_max_length + pad_cu_seqlens).
    assert cfg.model.seq_length == cfg.dataset.seq_length

    # Don't combine with optimizer-step param-gather overlap
    # (comm_overlap.overlap_param_gather_with_optimizer_step); keep that off.
    return cfg


# Megatron-LM CLI equivalent (0.19):
#   --cuda-graph-impl full_iteration --cuda-graph-warmup-steps 3 \
#   --te-rng-tracker --no-check-for-nan-in-loss-and-grad
#
# Verify: the log should show "Capture CUDA graph for training!!!" followed by
# "CUDA graph capture done for training!!!". Time only the iterations after that one
# against an eager run. Full-iteration graphs hold more memory than per-layer ones,
# so check peak memory too.
# Dropless MoE models can't use this: the token dispatcher syncs with the host. Use TE
# scoped graphs for those.
