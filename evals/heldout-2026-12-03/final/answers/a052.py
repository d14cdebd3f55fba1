# llama31_8b_sft_config + CUDA graphs without the 'is_moe_layer' crash
#
# The crash comes from the *partial* scope: local-impl graphs for a single submodule
# (mlp) need the MoE flag before it exists. Capturing the whole layer avoids that code
# path, so keep the local implementation and just drop the scope list.
cfg = llama31_8b_sft_config()
cfg.model.cuda_graph_impl = "local"
cfg.model.cuda_graph_scope = []          # empty = whole TransformerLayer per graph
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
