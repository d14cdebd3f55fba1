#!/usr/bin/env bash
# Ran these against your config; here's the sequence so you can re-run it after edits.
# configs/qwen3_30b_a3b.yaml: dropless MoE, alltoall dispatcher, EP=8.
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml

# 1) Recommendation (machine-readable, so the next steps can read it).
#    Expected for dropless + alltoall:
#      impl     = transformer_engine
#      modules  = [moe_router, moe_preprocess]       (attn only later, as an A/B)
#      companions: model.use_te_rng_tracker=true, rng.te_rng_tracker=true
#    Not moe (needs drop-and-pad) and not full_iteration (dropless dispatch syncs with the host
#    on a captured event -> cudaErrorCapturedEvent).
skill-tools recommend --format json "$CFG" | tee /tmp/recommend.json

# 2) Write the era-correct keys + companions into the config
#    (0.18+: cuda_graph_modules and cuda_graph_scope cleared; 0.16-0.17: cuda_graph_scope).
skill-tools apply --json "$CFG" --impl transformer_engine --scope moe_router moe_preprocess

# 3) Must come back clean: exit 0 = no findings, 1 = findings, 2 = unreadable input.
skill-tools validate --json "$CFG"

# 4) Before keeping it: steady-state A/B from a short eager run and a short graph run
#    (alltoall MoE is often close to neutral; capture step is excluded automatically).
# skill-tools logs eager.log graph.log --json
