# megatron-core 0.16.1 + Megatron Bridge: one CUDA graph for the whole training iteration
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
cfg.ddp.check_for_nan_in_grad = False   # grad NaN check syncs with the host -> off
# The loss NaN check is evaluated on the rerun state machine *after* the graphed
# forward/backward returns, so it can stay enabled for safety.
