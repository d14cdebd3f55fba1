# The TE RNG-tracker requirement belongs to the transformer_engine graph helper.
# MCore's local CudaGraphManager uses the regular Megatron RNG tracker, so switch impl:
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = ["attn"]
cfg.model.use_te_rng_tracker = False
cfg.rng.te_rng_tracker = False
