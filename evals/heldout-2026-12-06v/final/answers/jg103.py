# megatron-core 0.16.1 + Megatron Bridge: TE-scoped CUDA graphs on attention + MLP (dense GPT)
#
# 0.16.x/0.17.x spell the per-layer coverage as `cuda_graph_scope`.
# `cuda_graph_modules` and cuda_graph_impl="full_iteration" only exist from 0.18 on,
# so do not copy those from newer examples: TransformerConfig on 0.16.1 rejects them.

cfg.model.cuda_graph_impl = "transformer_engine"    # TE make_graphed_callables, per layer
cfg.model.cuda_graph_scope = ["attn", "mlp"]        # [] (or the old "full") would capture the whole layer
cfg.model.cuda_graph_warmup_steps = 3               # eager steps before capture (default 3, keep >= 1)

# Graph-safe RNG: required with any CUDA graph. Bridge syncs the two, but set both explicitly.
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# Prerequisites that are not config lines but will bite you:
#  - static shapes: fixed seq_length and micro_batch_size for the whole run
#  - recompute_granularity must not be "full" with TE scoped graphs
#    (MCore asserts "full recompute is only supported with full iteration CUDA graph.")
#  - no cpu_offloading
#
# Equivalent Megatron-LM flags on core_v0.16.x:
#   --cuda-graph-impl transformer_engine --cuda-graph-scope attn mlp --te-rng-tracker
#
# Check the log for "graphable layers" and "Time spent in CUDA Graphs capture", then compare
# steady-state step time (after the capture iteration) against an eager run.
