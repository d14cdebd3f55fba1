# Recommending a CUDA-graph setup for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall, EP=8)
# Session transcript; comments are mine.

$ skill-tools recommend configs/qwen3_30b_a3b.yaml
recommend: impl transformer_engine, scope moe_router,moe_preprocess  (megatron-core 0.19.2)
  why: dropless MoE: expert token counts are data-dependent, so capture only the router and preprocessing
  next: then add attn: --scope attn,moe_router,moe_preprocess
  evidence: NVIDIA's DeepSeek-V3, Qwen3 MoE and GPT-OSS presets capture attn,moe_router,moe_preprocess or moe_router,moe_preprocess (Bridge perf presets @v0.3.1-v0.5.0); measured: 1.40x for dropless MoE TE scopes (benchmarks/results/2026-12-03-training-bridge-h200-moe-tiny.json)
  evidence: moe: num_moe_experts=128
  overrides:
    model.cuda_graph_impl=transformer_engine
    model.cuda_graph_modules=[moe_router,moe_preprocess]
    model.cuda_graph_scope=null
    rng.te_rng_tracker=true
    model.use_te_rng_tracker=true

# (add --json when another tool/agent consumes it)
#
# Reading it:
#  - impl: transformer_engine (per-layer TE graphs). Not full_iteration: with dropless alltoall the
#    dispatcher copies token counts to the host every layer, which can't happen inside a capture.
#  - modules: moe_router + moe_preprocess. Not `moe`: MCore only allows the whole-MoE graph with
#    drop-and-pad ("moe cuda graph is only supported with drop-padding MoE.").
#  - attn is the suggested *next* step, to be added only if an A/B shows it helps.
#  - TE RNG tracker on in both places: Bridge asserts on it for any cuda_graph_impl != none.
#  - cuda_graph_scope=null: on 0.18+ the old key must be cleared when cuda_graph_modules is set.

# Write the era-correct keys into a copy of the config and look at the diff:
$ skill-tools apply configs/qwen3_30b_a3b.yaml --impl transformer_engine \
      --scope moe_router moe_preprocess --out configs/qwen3_30b_a3b.graphs.yaml
megatron-core 0.19.2 (0.18+ (cuda_graph_modules)): 5 change(s)
--- a/qwen3_30b_a3b.yaml
+++ b/qwen3_30b_a3b.yaml
@@ -5,5 +5,9 @@
   moe_token_dispatcher_type: alltoall
   expert_model_parallel_size: 8
   moe_expert_capacity_factor: null
-  cuda_graph_impl: none
-  cuda_graph_scope: full
+  cuda_graph_impl: transformer_engine
+  cuda_graph_scope: null
+  cuda_graph_modules: [moe_router, moe_preprocess]
+  use_te_rng_tracker: true
+rng:
+  te_rng_tracker: true
written: configs/qwen3_30b_a3b.graphs.yaml

# And check it:
$ skill-tools validate configs/qwen3_30b_a3b.graphs.yaml
configs/qwen3_30b_a3b.graphs.yaml: megatron-core 0.19.2 (0.18+ (cuda_graph_modules))
clean

# Next:
#  1. Run it; the log should show "Rank N: 48 graphable layers." on every PP stage and
#     "Time spent in CUDA Graphs capture on rank 0: ..." after the 3 warmup steps.
#  2. A/B against eager on steady-state iterations only (after the capture step):
#       skill-tools logs eager.log graphs.log --json     # speedup + CI, loss parity
#  3. Then try attn as well (--scope attn moe_router moe_preprocess) and keep it only if the A/B
#     says so. For an all-to-all-bound step a neutral result is possible (Bridge documents 42.00 s
#     vs 41.36 s eager for a Qwen3-30B-A3B H100 run); that's "not launch-bound", not a bug.
