# envs/moe-pretrain/training.auto.tfvars
# Rendered by our training-job module into Bridge overrides (model.* / rng.*).
#
# Error you hit:
#   moe recompute is not supported with moe_router CUDA graph with:
# (The sentence is cut off because, in transformer_config.py, the continuation string
#  "--cuda-graph-impl transformer_engine." sits on its own line as a separate expression
#  statement after the assert, not as part of the message. The full check is: with
#  cuda_graph_impl=transformer_engine, "moe" may not be in recompute_modules while
#  moe_router is graphed.)
#
# Why: selective recompute of "moe" checkpoints the whole MoE forward (router + preprocess +
# dispatch + experts) and re-runs it in backward. That region contains the router part you
# captured with TE (moe_router, moe_preprocess). A recompute region may sit entirely inside
# or entirely outside a graphed region, but it may not wrap one.
#
# Choose ONE of the two variants below.

# --- Variant A (recommended): keep the router graphs, stop recomputing the whole MoE block
recompute_granularity = "selective"
recompute_modules     = ["layernorm", "moe_act"]   # moe_act: expert activation, outside the router graph
                                                  # (needs moe_grouped_gemm=true). Don't add "moe".
cuda_graph_impl       = "transformer_engine"
cuda_graph_modules    = ["attn", "moe_router", "moe_preprocess"]   # megatron-core >= 0.18
# cuda_graph_scope    = ["attn", "moe_router", "moe_preprocess"]   # megatron-core 0.16/0.17 spelling
cuda_graph_warmup_steps = 3
use_te_rng_tracker      = true
rng_te_rng_tracker      = true

# --- Variant B: keep "moe" recompute for the memory, drop the router graphs
# recompute_granularity = "selective"
# recompute_modules     = ["moe", "layernorm"]
# cuda_graph_impl       = "transformer_engine"
# cuda_graph_modules    = ["attn"]          # moe_router AND moe_preprocess removed
#                                           # (moe_preprocess requires moe_router anyway)
# cuda_graph_warmup_steps = 3
# use_te_rng_tracker      = true
# rng_te_rng_tracker      = true

# Notes
# - Variant A frees less activation memory than "moe" recompute. Check peak memory; add
#   "mlp" recompute only if the model also has dense layers and "mlp" isn't graphed.
# - If hidden_dropout != 0, don't recompute a module that sits inside a graphed region.
# - Keep seq_length and micro_batch_size static; no cpu_offloading.
# - Compare replay iterations (after warmup + capture) against eager with the same recompute set.
