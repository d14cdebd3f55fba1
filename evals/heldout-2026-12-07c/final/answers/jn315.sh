#!/usr/bin/env bash
# Pre-launch CUDA-graph check for your Bridge config (megatron-core 0.19).
# Your current graph settings:
#   cuda_graph_impl=transformer_engine, cuda_graph_scope=[moe, moe_router], use_te_rng_tracker=False
set -euo pipefail

CFG=${1:-my_run.yaml}

# 1) Validate what you have. Pin the era so it checks against 0.19 even if this
#    machine has another megatron-core installed. Exit code 1 = findings.
skill-tools validate --json "$CFG" --mcore-version 0.19.2 > validate_before.json || true
python - <<'EOF'
import json
r = json.load(open("validate_before.json"))
for f in r.get("findings", []):
    print(f"{f['severity']:8s} {f['rule']}: {f['message']}")
    if f.get("fix"):
        print("         fix:", f["fix"])
EOF
# Expect three findings on this config:
#  - moe-and-moe-router (error): "cuda_graph_modules must not contain both moe and moe_router."
#    `moe` graphs the whole MoE MLP and `moe_router` a part of it, so MCore asserts in
#    TransformerConfig.__post_init__. You'd hit it at startup, before the first step.
#  - te-rng-tracker-required (error): Bridge asserts "Transformer engine's RNG tracker
#    is required for cudagraphs" for any cuda_graph_impl other than "none".
#  - deprecated-cuda-graph-scope (warning): on 0.18+ cuda_graph_scope is the old
#    spelling; it's migrated to cuda_graph_modules with a DeprecationWarning.

# 2) Fixed config. Which MoE scope depends on your routing:
#    dropless (the usual case, moe_expert_capacity_factor unset) -> moe_router + moe_preprocess
#    drop-and-pad (capacity factor set AND moe_pad_expert_input_to_capacity=True) -> moe alone
cat > cuda_graph_overrides.yaml <<'EOF'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null            # clear the old key; scope + modules together asserts on 0.18+
  cuda_graph_modules: [moe_router, moe_preprocess]
  # drop-and-pad instead:  cuda_graph_modules: [moe]
  cuda_graph_warmup_steps: 3
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
EOF
# (Adding `attn` to the list is a reasonable later A/B, once this captures cleanly.)

# 3) Re-validate the merged config (or let the helper write the keys for you:
#    `skill-tools apply --json "$CFG" --impl transformer_engine --scope ...`, scope syntax in --help).
#    Merge cuda_graph_overrides.yaml into your config first, then:
skill-tools validate --json "$CFG" --mcore-version 0.19.2 && echo "validate: clean"

# 4) After launch, confirm capture in the log: "Rank 0: N graphable layers." (non-zero on
#    every PP stage), "Start CUDA Graphs capture...", "Time spent in CUDA Graphs capture ...".
