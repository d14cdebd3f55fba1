#!/usr/bin/env bash
# Engine proxy (the harness's own loop from MCore parts: a capture micro-benchmark, not what users run;
# Megatron-LM's own loop is benchmarks/run-megatron-lm-h200.sh). The proxy runs committed in
# benchmarks/results/ (2026-12-02):
# dense tiny (every impl), the optimizer-graph study, a long eager/full-iteration A/B, MoE tiny
# (dropless TE scopes), drop-and-pad MoE tiny (the 'moe' scope) and dense medium. Variants of one
# invocation are interleaved by trial; compare only variants of the same invocation. The capture
# stream is chosen per torch build (--capture-stream auto) and recorded in each results file; the
# committed files name it ("-same-stream": MCore's shared capture stream on torch 2.11).
# Usage: bash benchmarks/run-training-h200.sh OUT_DIR [STEPS=30] [TRIALS=2]   (about 15 minutes)
set -u
OUT=${1:?output folder}
STEPS=${2:-30}
TRIALS=${3:-2}
PREFIX="$(date +%F)-training-${GPU:-h200}"
mkdir -p "$OUT"
bench() { python -m skill_tools bench --engine proxy --timeout 240 --no-progress "$@"; }
bench --workload dense --steps "$STEPS" --trials "$TRIALS" \
  --out "$OUT/dense" --name "$PREFIX-dense-tiny"
bench --workload dense --steps 60 --trials "$TRIALS" \
  --variants eager,full_iteration,full_iteration+optimizer,full_iteration+capturable-adam,eager+capturable-adam \
  --out "$OUT/optimizer" --name "$PREFIX-dense-tiny-optimizer-study"
bench --workload dense --steps 200 --trials 1 --variants eager,full_iteration \
  --out "$OUT/ab" --name "$PREFIX-dense-tiny-ab-200steps"
bench --workload moe --steps "$STEPS" --trials "$TRIALS" \
  --variants eager,te:attn+moe_router+moe_preprocess --out "$OUT/moe" --name "$PREFIX-moe-tiny"
bench --workload moe_droppad --steps 40 --trials 1 --variants eager,te:moe,te:attn+moe_router+moe_preprocess \
  --out "$OUT/moe_droppad" --name "$PREFIX-moe_droppad-tiny"
bench --workload dense --size medium --steps "$STEPS" --trials 1 --variants eager,full_iteration,te:attn+mlp \
  --out "$OUT/medium" --name "$PREFIX-dense-medium"
