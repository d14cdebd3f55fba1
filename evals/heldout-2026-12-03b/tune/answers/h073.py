# --- CUDA graphs for Qwen3-30B-A3B (dropless MoE, alltoall, EP=8) --------------------------
# Q: can we graph the whole MoE layer?
#    No. Dropless routing => per-expert token counts change every step, and the alltoall
#    dispatcher does device->host syncs to size buffers. Neither can be captured. The "moe"
#    module is only legal for drop-and-pad MoE.
#
# What we capture instead: attention (static shapes) and the MoE preprocessing step that
# prepares the permutation metadata. The router itself stays eager because its top-k output
# feeds the dynamic dispatch.
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn", "moe_preprocess"]
cfg.model.cuda_graph_warmup_steps = 3
# graph-safe RNG, required for any CUDA graph impl in Bridge
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# Keep seq length / MBS fixed; compare post-capture iterations with eager.
