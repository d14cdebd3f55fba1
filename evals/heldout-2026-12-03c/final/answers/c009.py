# megatron-core 0.17 backport: "full_iteration" is not an impl there yet, the
# whole-iteration graph is built by the local manager instead.
overrides = [
    "model.cuda_graph_impl=local",
    "model.cuda_graph_modules=[full_iteration]",
    "model.cuda_graph_warmup_steps=3",
    "rerun_state_machine.check_for_nan_in_loss=false",
    "ddp.check_for_nan_in_grad=false",
]
