# megatron-core 0.17: full_iteration impl/cuda_graph_modules are 0.18+ only.
# 0.17 spells whole-iteration capture as a local-impl scope value:
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration_inference"]   # whole-iteration scope added in 0.17
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
