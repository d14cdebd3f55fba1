# megatron-core 0.16.1 + Bridge: TE-scoped CUDA graphs on attention and MLP
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["attn", "mlp"]   # 0.16/0.17 key
cfg.model.cuda_graph_warmup_steps = 3
# RNG: dense GPT with attention_dropout=hidden_dropout=0.0 draws no random numbers inside
# the graphed region, so the TE RNG tracker is not needed; leave rng as in the recipe.
