#!/usr/bin/env bash
# Measured training benchmark on one GPU: dense tiny (every impl), MoE tiny (TE scopes),
# drop-and-pad MoE tiny (the 'moe' scope). Variants of one workload are interleaved by trial.
# Usage: bash benchmarks/run-training-h200.sh OUT_DIR [STEPS] [TRIALS]
set -u
OUT=${1:?output folder}
STEPS=${2:-30}
TRIALS=${3:-2}
DATE=$(date +%F)
mkdir -p "$OUT"
python -m skill_tools bench --workload dense --size tiny --steps "$STEPS" --trials "$TRIALS" --timeout 150 \
  --out "$OUT/dense" --name "$DATE-training-h200-dense-tiny" --no-progress
python -m skill_tools bench --workload moe --size tiny --steps "$STEPS" --trials "$TRIALS" --timeout 150 \
  --variants eager,te:attn+moe_router+moe_preprocess --out "$OUT/moe" --name "$DATE-training-h200-moe-tiny" --no-progress
python -m skill_tools bench --workload moe_droppad --size tiny --steps "$STEPS" --trials 1 --timeout 150 \
  --variants eager,te:moe --out "$OUT/moe_droppad" --name "$DATE-training-h200-moe_droppad-tiny" --no-progress
