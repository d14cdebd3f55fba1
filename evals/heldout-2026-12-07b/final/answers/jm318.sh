#!/usr/bin/env bash
# CUDA-graph recommendation for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall, EP=8)
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml

# 1) Recommend impl + modules for this model and the installed megatron-core.
#    (--json for machine-readable output; --mcore-version X.Y.Z if megatron-core isn't installed here)
skill-tools recommend "$CFG"
#
# Output on megatron-core 0.19.2:
#   recommend: impl transformer_engine, scope moe_router,moe_preprocess  (megatron-core 0.19.2)
#     why: dropless MoE: expert token counts are data-dependent, so capture only the router and preprocessing
#     next: then add attn: --scope attn,moe_router,moe_preprocess
#     overrides:
#       model.cuda_graph_impl=transformer_engine
#       model.cuda_graph_modules=[moe_router,moe_preprocess]
#       model.cuda_graph_scope=null
#       rng.te_rng_tracker=true
#       model.use_te_rng_tracker=true
#
# Why that and not something wider:
#   - 'moe' needs drop-and-pad ("moe cuda graph is only supported with drop-padding MoE.");
#     with dropless routing the per-expert token counts change every step.
#   - full_iteration fails at capture for dropless MoE: the alltoall dispatcher copies token
#     counts to the host.
#   - 'attn' is legal and is the suggested next A/B step, not the starting point.
#   - TE RNG tracker is required for any graph impl in Bridge, whatever the scope.

# 2) Write the era-correct overrides (+ companions) into a copy of the config.
skill-tools apply "$CFG" --impl transformer_engine --scope moe_router,moe_preprocess \
  --out configs/qwen3_30b_a3b.graphs.yaml
# 0.19 diff it produces:
#   +  cuda_graph_impl: transformer_engine
#   +  cuda_graph_modules: [moe_router, moe_preprocess]
#   +  cuda_graph_scope: null
#   +  use_te_rng_tracker: true
#   +rng:
#   +  te_rng_tracker: true

# 3) Validate the result; exit 0 = clean, 1 = findings (each with a 'fix' map to apply verbatim).
skill-tools validate --json configs/qwen3_30b_a3b.graphs.yaml

# 4) Later: A/B with attn added, on steady-state steps only
#    skill-tools apply "$CFG" --impl transformer_engine --scope attn,moe_router,moe_preprocess --out configs/qwen3_30b_a3b.attn.yaml
#    then compare eager vs each graph log: skill-tools logs eager.log graph.log --json
#    (alltoall-bound MoE steps are often close to neutral; keep graphs only if the speedup CI is above 1.0)
