# qwen3_30b_a3b recipe override — TE CUDA graphs for dropless MoE (alltoall, EP=8)
cfg.model.cuda_graph_impl = "transformer_engine"
# graph attention plus the MoE token permutation; the router itself is tiny,
# so skip it and keep the expert compute (dynamic shapes) eager
cfg.model.cuda_graph_modules = ["attn", "moe_preprocess"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# don't graph the whole MoE layer: dropless token counts are dynamic
