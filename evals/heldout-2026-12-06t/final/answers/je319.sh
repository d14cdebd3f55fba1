#!/usr/bin/env bash
# CUDA-graph recommendation for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall, EP=8),
# then write + check the overrides. Run from the repo root.
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml

# 1) Ask the helper. --json for the machine-readable form (impl, scope, overrides, reason, evidence).
skill-tools recommend --json "$CFG" | tee /tmp/cg_recommend.json
#
# For this config it comes back with (human form: `skill-tools recommend $CFG`):
#   recommend: impl transformer_engine, scope moe_router,moe_preprocess
#     why: dropless MoE: expert token counts are data-dependent, so capture only the router and preprocessing
#     next: then add attn: --scope attn,moe_router,moe_preprocess
#     overrides:
#       model.cuda_graph_impl=transformer_engine
#       model.cuda_graph_modules=[moe_router,moe_preprocess]
#       model.cuda_graph_scope=null
#       rng.te_rng_tracker=true
#       model.use_te_rng_tracker=true
#
# Why not something bigger:
#   - `moe` (whole MoE layer) needs drop-and-pad; with moe_expert_capacity_factor unset MCore asserts
#     "moe cuda graph is only supported with drop-padding MoE."
#   - full_iteration: the alltoall dispatcher copies token counts to the host and synchronizes, which
#     can't happen inside a capture (fails with cudaErrorCapturedEvent).
#   - the TE RNG tracker is not optional: Bridge asserts it for any cuda_graph_impl != none.

# 2) Write the era-correct keys (and the companions) into a copy of the config.
skill-tools apply "$CFG" --impl transformer_engine --scope moe_router,moe_preprocess \
    --out configs/qwen3_30b_a3b.graphs.yaml

# 3) Validate the result against the installed megatron-core (must print "clean", exit 0).
skill-tools validate configs/qwen3_30b_a3b.graphs.yaml

# 4) Later, as a separate A/B on steady-state (post-capture) steps, try adding attn:
#    skill-tools apply "$CFG" --impl transformer_engine --scope attn,moe_router,moe_preprocess --out configs/qwen3_30b_a3b.graphs_attn.yaml
#    and compare eager vs graph logs with: skill-tools logs eager.log graph.log --json
#    (A dropless all-to-all MoE can come out neutral; upstream measured 42.00 s graphed vs 41.36 s eager
#    on Qwen3-30B-A3B H100, so measure before keeping it.)
