# megatron-core 0.16.1 + Megatron Bridge: TE-scoped CUDA graphs on attention + MLP (dense GPT)
# 0.16.x spells the per-layer coverage key `cuda_graph_scope`. `cuda_graph_modules` only exists
# from 0.18 onward, and so does cuda_graph_impl="full_iteration". Don't use either here.

cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["attn", "mlp"]   # replaces the recipe's "full" (whole layer)
cfg.model.cuda_graph_warmup_steps = 3           # eager warmup steps before capture, must be >= 1
cfg.model.use_te_rng_tracker = True             # any CUDA graph needs TE's graph-safe RNG tracker
cfg.rng.te_rng_tracker = True

# Also required: a fixed seq_length and micro_batch_size (graphs replay static shapes).
# Don't combine with recompute_granularity="full": on 0.16 that needs local + ["full_iteration"].
