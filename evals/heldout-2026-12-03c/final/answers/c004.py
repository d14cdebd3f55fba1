# Full recompute can't wrap TE's graphed callables, but Megatron's own (local) graphs are
# captured inside the layer and are recompute-aware, so keep full recompute and switch impl.
overrides = [
    "model.recompute_granularity=full",
    "model.recompute_method=uniform",
    "model.recompute_num_layers=1",
    "model.cuda_graph_impl=local",
    "model.cuda_graph_modules=[attn]",
    "model.use_te_rng_tracker=true",
    "rng.te_rng_tracker=true",
]
