# Fix for: "check_for_nan_in_loss must be disabled when using full_iteration CUDA graph."
# megatron-core 0.16, cuda_graph_impl=local, cuda_graph_scope=[full_iteration]
cfg.rerun_state_machine.check_for_nan_in_loss = False
# ddp.check_for_nan_in_grad stays as the recipe sets it: the grad check runs after the
# graphed iteration, during the optimizer step, so it is unaffected by capture and keeps
# at least some NaN protection.
