# Yes, they can work together, but not with variable-length packs.
#
# Why the assert fires: TE-scoped graphs (make_graphed_callables) only take Tensor inputs,
# and PackedSeqParams is a dataclass. Worse, cu_seqlens has a different length for every pack
# (one boundary per sample in the pack), so even if it were passed as a tensor the captured
# graph would see a new shape on the next batch. THD attention also syncs to host while it
# works out the boundaries, which is illegal during capture.
#
# Fix: make the boundary tensor fixed-size. Bridge pads cu_seqlens to a constant length
# (extra entries repeat the last boundary), so the packed metadata has the same shape every
# step and the graph can be captured once and replayed.
#
# Drop this into your finetune script after building the recipe config
# (cfg = the ConfigContainer your LoRA recipe returns):

# --- static packed boundaries ------------------------------------------------
cfg.dataset.enable_offline_packing = True
cfg.dataset.offline_packing_specs.packed_sequence_size = cfg.dataset.seq_length
cfg.dataset.offline_packing_specs.pad_cu_seqlens = True
# pad_cu_seqlens is what makes the shapes static. Leave pad_to_max_length off: it pads every
# individual sample out to seq_length before packing, which throws away most of the packing
# gain (you end up with ~1 sample per pack) without making cu_seqlens any more static.
cfg.dataset.dataset_kwargs = {**(cfg.dataset.dataset_kwargs or {}), "pad_to_max_length": False}

# --- TE scoped graphs on attention ------------------------------------------
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = None          # 0.18+: use modules, not the old scope key
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# Notes
# - Energon's native packing (packing_buffer_size) does not support graphs; use offline packing.
# - Don't assume it works because pretraining with graphs works: run a short eager vs graph
#   A/B on this packed SFT config (same seed) and check loss parity and the capture lines
#   ("graphable layers", "Time spent in CUDA Graphs capture") before a long run.
# - If you only need the run to go through, cuda_graph_impl = "none" is the safe fallback.
