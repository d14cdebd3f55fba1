# LoRA SFT, packed sequences (THD) + TE attention graphs
# Make cu_seqlens fixed-size so the packed attention inputs have static shapes.
cfg.dataset.enable_offline_packing = True
cfg.dataset.offline_packing_specs.pad_cu_seqlens = True
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# packs keep their natural length; only the cu_seqlens tensor is padded
