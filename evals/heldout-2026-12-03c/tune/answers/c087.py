import dataclasses

# megatron-core 0.19: one graph for forward+backward of the whole iteration.
cfg.model = dataclasses.replace(
    cfg.model,
    cuda_graph_impl="full_iteration",
    cuda_graph_modules=["attn", "mlp"],   # the modules the iteration graph should cover
    cuda_graph_warmup_steps=3,
    use_te_rng_tracker=True,
)
cfg.rng = dataclasses.replace(cfg.rng, te_rng_tracker=True)
# The NaN checks sync with the host: not allowed inside the captured iteration.
cfg.rerun_state_machine = dataclasses.replace(cfg.rerun_state_machine, check_for_nan_in_loss=False)
cfg.ddp = dataclasses.replace(cfg.ddp, check_for_nan_in_grad=False)
