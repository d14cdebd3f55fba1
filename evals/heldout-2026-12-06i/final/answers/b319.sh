#!/usr/bin/env bash
# recommend -> apply -> validate for configs/qwen3_30b_a3b.yaml
# (Qwen3-30B-A3B, dropless MoE, alltoall dispatcher, EP=8)
set -euo pipefail

CFG=configs/qwen3_30b_a3b.yaml
MCORE=${MCORE:-0.19.2}

# 1) ask the helper; keep the JSON so we can diff it later
skill-tools recommend "$CFG" --mcore-version "$MCORE" --json | tee /tmp/recommend.json \
  | jq -r '"impl=\(.impl) scope=\(.scope|join(",")) era=\(.era)"'

# For this shape (128 experts, top-8, alltoall over EP=8) the launch-heavy part is the
# expert path itself: permute -> grouped GEMM -> unpermute for every MoE layer. That is
# why the recommendation for EP-sharded alltoall MoE is the whole-MoE TE graph ("moe"),
# with the TE RNG tracker on; attention stays eager for the first A/B.
IMPL=transformer_engine
SCOPE=moe

# 2) write era-correct overrides (0.18+ -> cuda_graph_modules, TE RNG tracker keys on
#    both model and rng) into a copy; keep the original untouched
skill-tools apply "$CFG" --mcore-version "$MCORE" \
  --impl "$IMPL" --scope "$SCOPE" --out configs/qwen3_30b_a3b.graphs.yaml

# 3) validate what we are about to launch
skill-tools validate configs/qwen3_30b_a3b.graphs.yaml --mcore-version "$MCORE"

cat <<'NOTE'
Next:
  - A/B the graphed config against eager (same seed/GBS) and compare post-capture
    steady-state step time only:
      skill-tools bench --config configs/qwen3_30b_a3b.graphs.yaml --variants eager,te:moe
  - if memory allows, try adding attn as a second variant.
NOTE
