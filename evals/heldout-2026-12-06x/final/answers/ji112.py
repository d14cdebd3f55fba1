# megatron-core 0.16.1 + Megatron Bridge: one CUDA graph for the whole training iteration.
#
# On 0.16 the full-iteration graph is requested through the scope list (the dedicated
# cuda_graph_impl="full_iteration" value only exists from 0.18). Bridge builds its training
# graphs through Transformer Engine (the local MCore manager is not a supported Bridge
# training path), so pair the full_iteration scope with the TE implementation.

def enable_full_iteration(cfg):
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["full_iteration"]   # must be the only entry
    cfg.model.cuda_graph_warmup_steps = 3

    # graph-safe RNG, required with any CUDA graph
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # NaN checks do a host sync -> not allowed inside a captured iteration
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False

    # the next param all-gather would be launched outside the captured step
    cfg.optimizer.overlap_param_gather_with_optimizer_step = False
    return cfg

# Requirements: fixed seq_length and micro-batch size, dense model (dropless MoE dispatch
# syncs with the host), enough memory headroom. Compare iterations after the capture step
# against an eager run with the same seed.
