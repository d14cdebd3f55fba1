# megatron-core 0.16.1 + Megatron Bridge: TE per-layer CUDA graphs on attention + MLP (dense GPT).
# 0.16/0.17 spell the module list `cuda_graph_scope`; `cuda_graph_modules` and
# cuda_graph_impl="full_iteration" only exist from 0.18, so don't copy those from newer docs.

cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["attn", "mlp"]   # [] (or the deprecated "full") = whole layer
cfg.model.cuda_graph_warmup_steps = 3          # eager steps before capture
cfg.model.use_te_rng_tracker = True            # graph-safe RNG, required with any CUDA graph
cfg.rng.te_rng_tracker = True

# Also required for capture to work/pay off:
#  - fixed seq_length and micro_batch_size (no variable-length batches, no unpadded packing)
#  - no whole-layer recompute (recompute_granularity="full" asserts with per-layer graphs)
#  - no CPU offloading
# Compare steady-state iterations after the capture step against an eager run.
