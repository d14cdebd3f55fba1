# Dropless MoE: whole-layer / moe scope is out (dynamic token counts + D2H syncs in the alltoall dispatcher).
# Graph only the static preprocessing part. megatron-core 0.19 key names.
overrides = [
    "model.cuda_graph_impl=transformer_engine",
    "model.cuda_graph_modules=[attn,moe_preprocess]",
    "model.cuda_graph_warmup_steps=3",
    "model.use_te_rng_tracker=true",
    "rng.te_rng_tracker=true",
]
# cfg = process_config_with_overrides(cfg, overrides)
# Measure post-capture iterations vs eager; neutral results are common when alltoall dominates.
