#!/usr/bin/env bash
# Recommend -> apply -> validate for configs/qwen3_30b_a3b.yaml (dropless MoE, alltoall, EP=8).
# Run from the directory that holds configs/. Needs only `pip install megatron-cuda-graphs-skill`
# (no GPU) for these three steps.
set -euo pipefail
CFG=configs/qwen3_30b_a3b.yaml
OUT=configs/qwen3_30b_a3b.graphs.yaml

# 1) Ask the helper. --json for the machine-readable answer (impl, scope, overrides, why).
skill-tools recommend "$CFG"
skill-tools recommend "$CFG" --json > recommend.json
#
# What it prints for this model (megatron-core 0.19.2):
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
# Why not more:
#   - full iteration: the dropless alltoall dispatcher copies token counts to the host and
#     waits on them (_maybe_dtoh_and_synchronize), which can't happen inside a capture.
#   - "moe" (whole MoE block): MCore asserts 'moe cuda graph is only supported with
#     drop-padding MoE.' You'd need moe_expert_capacity_factor + moe_pad_expert_input_to_capacity.
#   - The TE RNG tracker is not optional: Bridge asserts it for any cuda_graph_impl != none.

# 2) Write the era-correct overrides (keeps every other byte of the YAML; prints a diff).
skill-tools apply "$CFG" --impl transformer_engine --scope moe_router,moe_preprocess --out "$OUT"

# 3) Check the result against 0.19 (exit 0 = clean, 1 = findings).
skill-tools validate "$OUT" --json | python -c 'import json,sys; r=json.load(sys.stdin); print("ok" if r["ok"] else r["findings"])'

# 4) Later, as a separate A/B: the "next" suggestion, attn on top.
#    skill-tools apply "$CFG" --impl transformer_engine --scope attn,moe_router,moe_preprocess --out configs/qwen3_30b_a3b.graphs-attn.yaml
#
# Then measure before you keep it. All-to-all-bound MoE steps are often close to neutral with
# these scopes (upstream Qwen3-30B-A3B H100: 42.00 s graphed vs 41.36 s eager). Compare steady-state
# steps only (after warm-up + the capture step): `skill-tools logs eager.log graph.log`, or
# `skill-tools bench --config "$CFG"` on a GPU.
