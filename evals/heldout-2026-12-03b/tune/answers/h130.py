# megatron-core 0.16.1 + Megatron Bridge: one CUDA graph for the whole training iteration.
#
# There is no cuda_graph_impl="full_iteration" on 0.16 (that value arrived in 0.18).
# On this version the full-iteration graph is the *local* implementation with the special
# scope value "full_iteration":
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["full_iteration"]
cfg.model.cuda_graph_warmup_steps = 3
# Graph-safe RNG (Bridge asserts this for any CUDA graph impl):
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# The NaN checks do a device->host sync every step; that cannot be inside the captured
# iteration (Bridge asserts on the loss check):
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
# Static shapes: don't change seq_length / micro_batch_size between iterations.
