# 70B dense: memory savings + TE graphs.
# Full recompute re-runs the whole layer, including the TE-graphed attention -> assert.
# Selective recompute only re-runs the core attention (softmax(QK^T)V), which is where most
# activation memory is at long sequence length, and that composes with TE graphs.
cfg.model.recompute_granularity = "selective"
cfg.model.recompute_modules = ["core_attn"]
cfg.model.recompute_method = None
cfg.model.recompute_num_layers = None
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# (attention_dropout / hidden_dropout left at the model defaults)
