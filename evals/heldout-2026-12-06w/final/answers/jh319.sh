#!/usr/bin/env bash
# CUDA-graph recommendation for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall, EP=8)
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml

# 1) Ask the helper. --json is the stable, machine-readable form (impl, scope, reason, overrides).
skill-tools recommend "$CFG" --json | tee recommend.json
#
# For this model it comes back with:
#   impl:  transformer_engine
#   scope: moe_router, moe_preprocess
#   why:   dropless MoE: expert token counts are data-dependent, so capture only the router
#          and preprocessing
#   next:  then add attn: --scope attn,moe_router,moe_preprocess
#   overrides: model.cuda_graph_impl=transformer_engine
#              model.cuda_graph_modules=[moe_router,moe_preprocess]
#              model.cuda_graph_scope=null
#              model.use_te_rng_tracker=true
#              rng.te_rng_tracker=true
#
# Why not wider: the `moe` module needs drop-and-pad (MCore asserts "moe cuda graph is only
# supported with drop-padding MoE."), and a full-iteration graph fails at capture on dropless
# alltoall because the dispatcher copies token counts to the host inside the step. The TE RNG
# tracker lines are not optional: Bridge asserts the TE tracker for any cuda_graph_impl != none.

# 2) Write the era-correct keys (mcore 0.18+ -> cuda_graph_modules; clears cuda_graph_scope,
#    which the stock recipes set and which would assert next to modules).
skill-tools apply "$CFG" --impl transformer_engine --scope moe_router,moe_preprocess \
  --out configs/qwen3_30b_a3b.graphs.yaml

# 3) Check the result reads back clean.
skill-tools validate configs/qwen3_30b_a3b.graphs.yaml --json

# 4) Later, as an A/B rather than a default: add attn and compare steady-state step time.
skill-tools apply "$CFG" --impl transformer_engine --scope attn,moe_router,moe_preprocess \
  --out configs/qwen3_30b_a3b.graphs-attn.yaml
skill-tools validate configs/qwen3_30b_a3b.graphs-attn.yaml --json

# Measure before keeping either: for an all-to-all-bound 30B-A3B step the gain can be ~neutral.
#   skill-tools bench --config "$CFG" --dry-run     # plan on this machine's GPUs
#   skill-tools logs eager.log graph.log --json      # or compare your own two runs
