# 70B dense: full recompute + CUDA graphs.
# The TE helper can't graph inside a recompute region, but MCore's own local per-layer
# graphs re-capture the recomputed forward, so switch the implementation and keep recompute.
cfg.model.recompute_granularity = "full"
cfg.model.recompute_method = "uniform"
cfg.model.recompute_num_layers = 1

cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
