#!/usr/bin/env bash
# The measured inference benchmark on one GPU, as committed in benchmarks/results/ (2026-12-02):
# eager, eager padded to the graph buckets (the parity control), layer and block decode graphs on
# the tiny GPT (batch 1-128), and eager vs block on the tiny MoE.
# Usage: bash benchmarks/run-inference-h200.sh OUT_DIR   (about 5 minutes)
set -u
OUT=${1:?output folder}
mkdir -p "$OUT"
python -m skill_tools bench --mode inference --workload dense --batch-sizes 1,2,4,8,16,32,64,128 \
  --decode-tokens 64 --trials 3 --inference-scope none,layer,block --out "$OUT"
python -m skill_tools bench --mode inference --workload moe --batch-sizes 1,8,32 \
  --decode-tokens 32 --trials 2 --inference-scope none,block --out "$OUT"
