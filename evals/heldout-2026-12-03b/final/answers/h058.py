# megatron-core 0.19 + Bridge: capture forward+backward of the whole iteration as ONE graph.
# The optimizer step stays eager.
cfg.model.cuda_graph_impl = "full_iteration"
# Must be empty with this impl (MCore asserts otherwise):
cfg.model.cuda_graph_modules = []
cfg.model.cuda_graph_warmup_steps = 3
# Graph-safe RNG (Bridge asserts the TE tracker for every graph impl):
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# Both NaN checks copy a flag to the host every step; a captured iteration can't sync:
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False
# Leave overlap_param_gather_with_optimizer_step off: its all-gather is launched outside the
# graph and waited on inside it. Keep seq_length / micro_batch_size fixed.
