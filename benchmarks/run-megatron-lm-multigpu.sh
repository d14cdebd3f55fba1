#!/usr/bin/env bash
# Several GPUs through Megatron-LM's own loop (engine megatron-lm): TP, PP (with and without virtual
# stages) and EP layouts, each variant one torchrun job over NPROC GPUs, interleaved by trial.
#
#   bash benchmarks/run-megatron-lm-multigpu.sh PHASE OUTDIR [NPROC=2]
#
# PHASE: tp | pp | vpp | ep | all. Layouts are checked before any GPU time (skill-tools refuses what
# Megatron-LM's validate_args would refuse) and rendered as Megatron-LM flags; `--dry-run` on any
# line below prints them without a GPU. Needs megatron-core (0.18+ wheel) and Transformer Engine on
# PYTHONPATH and NPROC visible GPUs. Not run yet: only one-GPU machines were lent so far.
set -uo pipefail
phase=${1:?phase: tp|pp|vpp|ep|all}
out=${2:?output folder}
n=${3:-2}
mkdir -p "$out"
st() { python3 -m skill_tools bench --engine megatron-lm --no-progress --timeout 400 --nproc "$n" "$@"; }
day=$(date +%F)

run_tp() {
  st --tp 2 --workload dense --size tiny --variants eager,full_iteration,te:attn+mlp --steps 30 --trials 2 \
     --out "$out/tp" --name "$day-training-megatron-lm-h200x$n-dense-tiny-tp2"
  st --tp 2 --workload dense --size medium --variants eager,full_iteration,te:attn+mlp --steps 20 --trials 1 \
     --out "$out/tp-medium" --name "$day-training-megatron-lm-h200x$n-dense-medium-tp2"
}
run_pp() {  # graphs on every stage; memory growth with micro-batches (the PP memory rule)
  for mb in 2 4 8; do
    st --pp 2 --microbatches "$mb" --workload dense --size tiny --variants eager,te:attn+mlp,full_iteration \
       --steps 20 --trials 1 --out "$out/pp-mb$mb" --name "$day-training-megatron-lm-h200x$n-dense-tiny-pp2-mb$mb"
  done
}
run_vpp() {
  st --pp 2 --vpp-layers 1 --microbatches 4 --workload dense --size tiny --variants eager,te:attn+mlp,full_iteration \
     --steps 20 --trials 1 --out "$out/vpp" --name "$day-training-megatron-lm-h200x$n-dense-tiny-pp2-vpp1"
}
run_ep() {
  st --ep 2 --workload moe --size tiny --variants eager,te:attn+moe_router+moe_preprocess --steps 20 --trials 1 \
     --out "$out/ep" --name "$day-training-megatron-lm-h200x$n-moe-tiny-ep2"
  st --ep 2 --workload moe_droppad --size tiny --variants eager,te:moe,full_iteration --steps 20 --trials 1 \
     --out "$out/ep-droppad" --name "$day-training-megatron-lm-h200x$n-moe_droppad-tiny-ep2"
}
case "$phase" in
  tp) run_tp ;; pp) run_pp ;; vpp) run_vpp ;; ep) run_ep ;;
  all) run_tp; run_pp; run_vpp; run_ep ;;
  *) echo "unknown phase $phase"; exit 2 ;;
esac
