#!/usr/bin/env bash
# Eager-vs-graph runs through Megatron Bridge's own training loop (engine bridge) on a GPU host.
#
#   bash benchmarks/run-bridge-h200.sh PHASE OUTDIR
#
# PHASE: smoke | dense | moe | droppad | rules | all (TRIALS, default 1: runs are start-up dominated and
# each one already gives a per-step bootstrap CI). Each `skill-tools bench --engine bridge` call runs one torchrun
# process per variant and trial (interleaved): Bridge's pretrain() with the variant's Hydra overrides
# applied by Bridge's process_config_with_overrides, then reads the run's own log (iteration lines,
# "Deleting CUDA graphs") and the engine's sidecar. Needs on PYTHONPATH: megatron-core 0.18+ and
# Transformer Engine (their kit), and megatron-bridge 0.6.2 with what its training path imports
# (benchmarks/stage-bridge-gpu.sh stages them; benchmarks/README.md says how).
set -uo pipefail
phase=${1:?phase: smoke|dense|moe|droppad|rules|all}
trials=${TRIALS:-1}
out=${2:?output folder}
mkdir -p "$out"
st() { python3 -m skill_tools bench --engine bridge --no-progress --timeout 400 "$@"; }
day=$(date +%F)

run_smoke() {
  st --workload dense --variants eager,full_iteration --steps 8 --trials 1 --out "$out/smoke" --name "$day-bridge-smoke"
}
run_dense() {
  st --workload dense --size tiny --variants eager,te:attn+mlp,full_iteration,full_iteration:local-spelling \
     --steps 30 --trials "$trials" --out "$out/dense" --name "$day-training-bridge-h200-dense-tiny"
}
run_moe() {  # dropless full iteration is refused before GPU time (rule full-iteration-dropless-moe)
  st --workload moe --size tiny --variants eager,te:attn+moe_router+moe_preprocess \
     --steps 20 --trials "$trials" --out "$out/moe" --name "$day-training-bridge-h200-moe-tiny"
}
run_droppad() {
  st --workload moe_droppad --size tiny --variants eager,te:moe,full_iteration:local-spelling \
     --steps 20 --trials "$trials" --out "$out/moe_droppad" --name "$day-training-bridge-h200-moe_droppad-tiny"
}
run_rules() {  # Bridge's own checks, one short run each, in parallel: where and how Bridge refuses or converts
  local base
  base=$(python3 -c 'from skill_tools.harness.engines.bridge import cli as bridge_loop; from skill_tools.harness.spec import named_variant
s = named_variant("eager", engine="bridge", workload="dense", size="tiny", steps=4, warmup_steps=3, nproc=1,
                  layer_spec="te", capture_stream="default", profile_steps=0)
print(" ".join(bridge_loop.model_overrides(s)))')
  mkdir -p "$out/rules"
  rule() {  # NAME OVERRIDES...
    local name=$1; shift
    CUDA_DEVICE_MAX_CONNECTIONS=1 PYTHONUNBUFFERED=1 timeout 300 python3 -m torch.distributed.run --standalone \
      --nproc-per-node=1 -m skill_tools.harness.engines.bridge --sidecar "$out/rules/$name.sidecar.json" -- \
      $base "$@" > "$out/rules/$name.log" 2>&1
    echo "rule run $name: exit $?"
  }
  # te-rng-tracker-required: TE-scoped graphs with both RNG-tracker switches off
  rule te-scoped-no-rng-tracker model.cuda_graph_impl=transformer_engine "model.cuda_graph_modules=[attn,mlp]" \
    rng.te_rng_tracker=false model.use_te_rng_tracker=false &
  # nan-check-full-iteration: full iteration with Bridge's default NaN check left on
  rule full-iteration-nan-check-on model.cuda_graph_impl=full_iteration rng.te_rng_tracker=true model.use_te_rng_tracker=true &
  # bridge-local-scoped: MCore per-layer local graphs
  rule local-per-layer model.cuda_graph_impl=local "model.cuda_graph_modules=[]" rng.te_rng_tracker=true \
    model.use_te_rng_tracker=true &
  wait
}
case "$phase" in
  smoke) run_smoke ;;
  dense) run_dense ;;
  moe) run_moe ;;
  droppad) run_droppad ;;
  rules) run_rules ;;
  all) run_smoke; run_dense; run_moe; run_droppad ;;
  *) echo "unknown phase $phase" >&2; exit 2 ;;
esac
