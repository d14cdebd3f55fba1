# megatron-core 0.16.1 + Megatron Bridge: TE-scoped CUDA graphs on attention + MLP (dense GPT)
# 0.16/0.17 spelling: the module list lives in `cuda_graph_scope`.
# Do NOT use `cuda_graph_modules` or cuda_graph_impl="full_iteration" here; both appear only in 0.18+.

cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["attn", "mlp"]     # replaces the recipe's default "full" (whole layer)
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True              # Bridge asserts this whenever graphs are on
cfg.rng.te_rng_tracker = True

# Keep seq_length and micro_batch_size fixed across steps (no variable-length batches, no unpadded packing).
# "mlp" is only valid because the model has dense MLP layers; on an all-MoE model it asserts.
# Time graphs vs eager on iterations after the capture step (iteration 4 with warmup 3 includes capture).
