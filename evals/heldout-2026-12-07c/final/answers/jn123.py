# Fix for:
#   AssertionError: moe recompute is not supported with moe_router CUDA graph with:
#
# What it means: recompute_modules=["moe", ...] checkpoints the *whole* MoE block and
# re-runs it in backward. The router is part of that block, and you graph it with TE
# (moe_router / moe_preprocess). A recompute region may sit entirely inside or entirely
# outside a graphed region. It may not contain one, because the recompute would re-run
# the graphed router. So MCore refuses "moe" recompute whenever moe_router is graphed
# with cuda_graph_impl="transformer_engine".
#
# The dangling "with: " is a quirk of the source, not a missing value. In
# transformer_config.py the rest of the message ("--cuda-graph-impl transformer_engine.")
# is a separate string statement on the next line, so it never becomes part of the
# assert message. Read it as "...with moe_router CUDA graph with --cuda-graph-impl
# transformer_engine".
#
# Pick ONE of the two fixes.

# --- Fix 1 (usually best): keep the graphs, recompute smaller pieces ----------------
# before: cfg.model.recompute_modules = ["moe", "layernorm"]
cfg.model.recompute_granularity = "selective"
cfg.model.recompute_modules = ["moe_act", "layernorm"]   # "moe" out; moe_act = expert activation only
# ("mla_up_proj" too if the model uses MLA; "mlp" only matters if there are dense layers)

cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = None                        # megatron-core 0.18+; on 0.16/0.17 put the list in cuda_graph_scope
cfg.model.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# --- Fix 2: keep "moe" recompute, stop graphing the router ---------------------------
# cfg.model.recompute_modules = ["moe", "layernorm"]
# cfg.model.cuda_graph_modules = ["attn"]     # moe_preprocess must go too: it requires moe_router
#
# Do NOT "fix" it by graphing the whole MoE block instead ("moe" scope): for a dropless
# model that scope is refused (drop-and-pad only), and moe + moe_router can never be combined.
#
# Memory: moe_act + layernorm saves less activation memory than recomputing the whole
# MoE block. Check peak memory after capture, then A/B steady-state step time (after the
# capture step) against eager. Fix 2 keeps the memory profile but graphs less.
