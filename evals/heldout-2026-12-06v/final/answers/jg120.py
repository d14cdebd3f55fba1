# 70B dense: keep activation-memory savings AND CUDA graphs
#
# Root cause of
#   AssertionError: full recompute is only supported with full iteration CUDA graph.
# recompute_granularity="full" re-runs the whole transformer layer in backward, which
# would wrap (and replay) the TE graph captured for attention. MCore only lets a
# recompute region contain a graph when the graph is the entire iteration.
#
# Fix used here: keep TE scoped graphs on attention, move recompute to a submodule that
# is outside the graphed region (the dense MLP). Minimal diff to the existing recipe:

# --- recompute -------------------------------------------------------------------------
cfg.model.recompute_granularity = "selective"   # was "full"
cfg.model.recompute_modules = ["mlp"]           # MLP is not graphed -> allowed
# recompute_method / recompute_num_layers only drive *full* recompute; selective ignores
# them, so the existing "uniform" / 1 can stay in the recipe untouched.

# --- CUDA graphs (megatron-core 0.18+ keys) --------------------------------------------
cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = None               # clear the deprecated key
cfg.model.cuda_graph_modules = ["attn"]
cfg.model.cuda_graph_warmup_steps = 3
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True
# (0.16/0.17: cfg.model.cuda_graph_scope = ["attn"] and no cuda_graph_modules line)

# Notes
# * Don't add "core_attn" to recompute_modules while attn is graphed unless
#   attention_dropout == 0 ("attention dropout is not supported with graphed attention
#   recomputation.").
# * Selective MLP recompute saves less than full-layer recompute; re-check peak memory.
# * Alternative that keeps full recompute: a full-iteration graph
#   (0.18+: cuda_graph_impl="full_iteration", cuda_graph_modules=[];
#    0.16/0.17: cuda_graph_impl="local", cuda_graph_scope=["full_iteration"])
#   with rerun_state_machine.check_for_nan_in_loss=False and ddp.check_for_nan_in_grad=False.
#   Costs more memory, which may not fit at 70B.
# * Compare post-capture iterations against eager; not the capture step.
