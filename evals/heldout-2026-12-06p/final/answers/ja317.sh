#!/usr/bin/env bash
# Pre-launch check of the Bridge config (megatron-core 0.19) with the skill helpers.
set -euo pipefail
CFG=${1:-my_pretrain.yaml}

# 1) validate as written. --mcore-version pins the era if the env has a different mcore.
skill-tools validate --json "$CFG" --mcore-version 0.19.2 || true
# What it reports for impl=transformer_engine, scope=[moe, moe_router], use_te_rng_tracker=False:
#   ERROR  moe + moe_router together: "cuda_graph_modules must not contain both moe and moe_router."
#          (MCore TransformerConfig asserts this)
#   ERROR  TE RNG tracker required for CUDA graphs (use_te_rng_tracker / rng.te_rng_tracker)
#   WARN   cuda_graph_scope is deprecated on 0.19 -> cuda_graph_modules
# Each finding carries a `fix` map; apply it literally.

# 2) fixed config (dropless MoE: router + preprocess; use ["moe"] alone only for drop-and-pad)
cat > "${CFG%.yaml}.fixed.yaml" <<'YAML'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_modules: [moe_router, moe_preprocess]
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
YAML
# (or: skill-tools apply --json "$CFG" --impl transformer_engine --scope moe_router,moe_preprocess)

# 3) re-validate until exit code 0
skill-tools validate --json "${CFG%.yaml}.fixed.yaml" --mcore-version 0.19.2
# Python API, same thing: from skill_tools import validate
