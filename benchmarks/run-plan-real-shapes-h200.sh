#!/usr/bin/env bash
# Eager-vs-graph runs of user configs at their real layer shapes (bench --config: the plan fits each
# config to one GPU with fewer layers of the same shape), through Megatron-LM's own pretrain().
#
#   bash benchmarks/run-plan-real-shapes-h200.sh PHASE OUTDIR
#
# PHASE: llama | qwen | qwen-bridge | shared | all. qwen-bridge runs the Bridge YAML through Megatron Bridge's
# own pretrain() (engine bridge; megatron-bridge on PYTHONPATH, benchmarks/stage-bridge-gpu.sh). Each call prints the plan (--dry-run) first, then runs one
# torchrun process per variant and trial, interleaved, and writes OUTDIR/<name>.json/.md/.png with
# the worker logs beside them.
set -uo pipefail
phase=${1:?phase: llama|qwen|qwen-bridge|shared|all}
out=${2:?output folder}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."  # config paths stay relative to the project root: the results record them as given
day=$(date +%F)
st() { python3 -m skill_tools bench --engine megatron-lm --no-progress --timeout 240 "$@"; }

run_llama() {
  st --config "examples/megatron_lm_llama3_8b.sh" --variants eager,full_iteration,te:attn+mlp \
     --steps ${STEPS:-30} --trials ${TRIALS:-1} --out "$out/llama" --name "$day-training-megatron-lm-h200-llama3-8b-shape"
}
run_qwen() {
  st --config "examples/bridge_qwen3_30b_a3b.yaml" --variants eager,te:attn+moe_router+moe_preprocess \
     --steps ${STEPS:-30} --trials ${TRIALS:-1} --out "$out/qwen" --name "$day-training-megatron-lm-h200-qwen3-30b-a3b-shape"
}
run_qwen_bridge() {
  python3 -m skill_tools bench --engine bridge --no-progress --timeout 300 \
     --config "examples/bridge_qwen3_30b_a3b.yaml" --variants eager,te:attn+moe_router+moe_preprocess \
     --steps ${STEPS:-30} --trials ${TRIALS:-1} --out "$out/qwen-bridge" --name "$day-training-bridge-h200-qwen3-30b-a3b-shape"
}
run_shared() {
  st --config "examples/hydra_qwen15_moe_shared_expert.txt" --variants eager,te:attn+moe_router+moe_preprocess \
     --steps ${STEPS:-30} --trials ${TRIALS:-1} --out "$out/shared" --name "$day-training-megatron-lm-h200-qwen15-moe-shared-shape"
}
case "$phase" in
  llama) run_llama ;; qwen) run_qwen ;; qwen-bridge) run_qwen_bridge ;; shared) run_shared ;;
  all) run_llama; run_qwen; run_shared ;;
  *) echo "unknown phase $phase"; exit 2 ;;
esac
