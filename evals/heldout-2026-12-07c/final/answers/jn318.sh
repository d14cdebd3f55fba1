#!/usr/bin/env bash
# Recommend a CUDA-graph impl/scope for configs/qwen3_30b_a3b.yaml, apply it, validate it.
# Model facts from the config: dropless MoE, alltoall token dispatcher, EP=8.
set -euo pipefail

CFG=configs/qwen3_30b_a3b.yaml

# 1) Ask the helper. --json so we can read it programmatically.
skill-tools recommend --json "$CFG" | tee recommend.json

# 2) What we expect it to say for this model, so a surprise is easy to spot.
#    TE per-layer graphs; attention plus the whole MoE block. The MoE block
#    graph takes the router, preprocess and the grouped expert GEMMs in one
#    capture per layer, which is where most of the launches are on a 128-expert
#    layer. Since the block graph already contains the router, don't also
#    list moe_router/moe_preprocess (moe + moe_router asserts).
EXPECTED_IMPL="transformer_engine"
EXPECTED_SCOPE="attn moe"

python3 - "$EXPECTED_IMPL" "$EXPECTED_SCOPE" <<'EOF'
import json, sys
rec = json.load(open("recommend.json"))
want_impl, want_scope = sys.argv[1], sys.argv[2].split()
print("recommended:", json.dumps(rec, indent=2)[:2000])
text = json.dumps(rec)
if want_impl not in text or not all(m in text for m in want_scope):
    print(f"NOTE: helper differs from the expected {want_impl} {want_scope}; read its reasons before overriding it")
EOF

# 3) Write era-correct keys (0.18+: cuda_graph_modules, clears cuda_graph_scope;
#    0.16-0.17: cuda_graph_scope) plus the required companions (TE RNG tracker
#    in both model.use_te_rng_tracker and rng.te_rng_tracker).
skill-tools apply --json "$CFG" --impl "$EXPECTED_IMPL" --scope $EXPECTED_SCOPE | tee apply.json

# 4) Validate the result; exit 0 means no findings.
skill-tools validate --json "$CFG" | tee validate.json

# 5) Then launch a short run and confirm capture:
#      "Rank 0: N graphable layers."  (non-zero on every PP stage)
#      "Start CUDA Graphs capture..." / "Time spent in CUDA Graphs capture on rank 0: ..."
#    and A/B steady-state steps against eager:
#      skill-tools logs eager.log graph.log --json
