#!/usr/bin/env bash
# Eager-vs-graph runs through Megatron-LM's own training loop (engine megatron-lm) on a GPU host.
#
#   bash benchmarks/run-megatron-lm-h200.sh PHASE OUTDIR
#
# PHASE: smoke | dense | headroom | layer | moe | ab | medium | legacy | all. Each `skill-tools bench` call runs one torchrun
# process per variant and trial (interleaved), reads the run's own log, and writes
# OUTDIR/<name>.json/.md/.png plus the worker logs. Needs megatron-core (0.18+: the wheel's
# megatron.training) and Transformer Engine on PYTHONPATH. The legacy phase needs megatron-core
# 0.16.1 in $LEGACY_SITE and a Megatron-LM core_v0.16.1 checkout in $MLM_0161 (megatron/training,
# megatron/legacy, megatron/rl).
set -uo pipefail
phase=${1:?phase: smoke|dense|headroom|layer|moe|ab|medium|legacy|all}
out=${2:?output folder}
mkdir -p "$out"
st() { python3 -m skill_tools bench --engine megatron-lm --no-progress --timeout 200 "$@"; }
day=$(date +%F)

run_smoke() {
  st --workload dense --variants eager,full_iteration --steps 6 --trials 1 --out "$out/smoke" --name "$day-mlm-smoke"
}
run_dense() {
  st --workload dense --size tiny --variants eager,full_iteration,te:attn+mlp,full_iteration+optimizer \
     --steps 30 --trials 2 --out "$out/dense" --name "$day-training-megatron-lm-h200-dense-tiny"
}
run_headroom() {  # where the graphed step's host time goes, and what the optimizer graph and manual GC take off it
  st --workload dense --size tiny --variants eager,full_iteration,full_iteration+optimizer,full_iteration+optimizer+manual-gc \
     --steps ${STEPS:-40} --trials ${TRIALS:-1} --out "$out/headroom" --name "$day-training-megatron-lm-h200-dense-tiny-headroom-ladder"
}
run_layer() {
  st --workload dense --size tiny --variants eager,te:layer,local \
     --steps 20 --trials 1 --out "$out/layer" --name "$day-training-megatron-lm-h200-dense-tiny-layer"
}
run_moe() {
  # --run-rejected: full iteration with dropless MoE is refused by rule full-iteration-dropless-moe;
  # run it anyway to observe the failure the rule predicts.
  st --workload moe --size tiny --variants eager,te:attn+moe_router+moe_preprocess,full_iteration --run-rejected \
     --steps 20 --trials 1 --out "$out/moe" --name "$day-training-megatron-lm-h200-moe-tiny"
  st --workload moe_droppad --size tiny --variants eager,te:moe,full_iteration \
     --steps 20 --trials 1 --out "$out/droppad" --name "$day-training-megatron-lm-h200-moe_droppad-tiny"
}
run_ab() {
  st --workload dense --size tiny --variants eager,full_iteration --steps 150 --trials 1 \
     --out "$out/ab" --name "$day-training-megatron-lm-h200-dense-tiny-ab-150steps"
}
run_medium() {
  st --workload dense --size medium --variants eager,full_iteration,te:attn+mlp \
     --steps 20 --trials 1 --out "$out/medium" --name "$day-training-megatron-lm-h200-dense-medium"
}
run_legacy() {
  : "${LEGACY_SITE:?megatron-core 0.16.1 site folder}" "${MLM_0161:?Megatron-LM core_v0.16.1 checkout}"
  PYTHONPATH="$LEGACY_SITE:${PYTHONPATH:-}" st --mcore-version 0.16.1 --megatron-lm "$MLM_0161" \
     --workload dense --size tiny --variants eager,te:attn+mlp,full_iteration,local --run-rejected \
     --steps 20 --trials 1 --out "$out/legacy" --name "$day-training-megatron-lm-0.16.1-h200-dense-tiny"
}
case "$phase" in
  smoke) run_smoke ;; dense) run_dense ;; headroom) run_headroom ;; layer) run_layer ;; moe) run_moe ;; ab) run_ab ;;
  medium) run_medium ;; legacy) run_legacy ;;
  all) run_dense; run_moe; run_legacy; run_layer; run_ab; run_medium ;;
  *) echo "unknown phase $phase"; exit 2 ;;
esac
