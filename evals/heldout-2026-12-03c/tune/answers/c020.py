import dataclasses

# Recipe 1 (was enable_cuda_graph=True, cuda_graph_scope=["full_iteration"]).
# enable_cuda_graph is deprecated and means cuda_graph_impl="local"; on 0.19 an
# empty cuda_graph_modules list means "capture everything", so:
cfg.model = dataclasses.replace(
    cfg.model,
    enable_cuda_graph=False,
    cuda_graph_impl="local",
    cuda_graph_scope=None,
    cuda_graph_modules=[],
)
cfg.rerun_state_machine.check_for_nan_in_loss = False
cfg.ddp.check_for_nan_in_grad = False

# Recipe 2: same impl, renamed key.
cfg2.model = dataclasses.replace(
    cfg2.model,
    cuda_graph_impl="transformer_engine",
    cuda_graph_scope=None,
    cuda_graph_modules=["attn", "moe_router"],
)
