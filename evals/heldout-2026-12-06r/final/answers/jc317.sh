#!/usr/bin/env bash
# Pre-launch check for the proposed Bridge config (megatron-core 0.19).
set -euo pipefail

cat > /tmp/cg_check.yaml <<'YAML'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: [moe, moe_router]
  use_te_rng_tracker: false
YAML

skill-tools validate --json /tmp/cg_check.yaml --mcore-version 0.19.2 || true
# Findings to expect (exit code 1):
#  - error: moe and moe_router cannot be combined
#      MCore: "cuda_graph_modules must not contain both moe and moe_router."
#  - error: TE RNG tracker required for cuda_graph_impl=transformer_engine
#  - warning: cuda_graph_scope is deprecated on 0.19 -> use cuda_graph_modules
#
# Dropless MoE -> router + preprocess; ("moe" alone is only for drop-and-pad MoE)
cat > /tmp/cg_fixed.yaml <<'YAML'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
YAML

skill-tools validate --json /tmp/cg_fixed.yaml --mcore-version 0.19.2   # expect exit 0
