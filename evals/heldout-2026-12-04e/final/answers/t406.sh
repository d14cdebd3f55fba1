#!/usr/bin/env bash
# cg_bringup_llama31_8b.sh
# CUDA-graph bring-up for Llama 3.1 8B, Megatron Bridge on megatron-core 0.19, 8xH100,
# TP=1 PP=1, seq 8192, MBS 1.
#
#   stage 1  eager baseline, then nsys profile -> are there launch gaps at all?
#   stage 2  TE scoped graphs on attention   -> only if stage 1 shows host/launch gaps
#   stage 3  (optional) attn+mlp             -> only if stage 2 beat eager in an A/B
#
# Usage: ./cg_bringup_llama31_8b.sh eager|profile|attn|attn_mlp
set -euo pipefail

STAGE=${1:?eager|profile|attn|attn_mlp}
STEPS=${STEPS:-60}
LOGDIR=${LOGDIR:-logs/cg_bringup}; mkdir -p "$LOGDIR"

# Static shapes: graphs replay fixed buffers, so seq length and micro-batch size never change.
COMMON=(
  --model llama31_8b --mode pretrain
  -sl 8192 -mb 1 -tp 1 -pp 1 -ms "$STEPS"
  rng.seed=1234
)

# Every graph path in Bridge needs TE's graph-safe RNG tracker; cuda_graph_scope is cleared
# because the stock recipe sets it ("full") and 0.18+ asserts when it is combined with modules.
GRAPH_BASE=(
  model.cuda_graph_impl=transformer_engine
  model.cuda_graph_scope=null
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
)

run() {  # run <tag> <extra args...>
  local tag=$1; shift
  torchrun --nproc-per-node 8 scripts/training/run_recipe.py "${COMMON[@]}" "$@" \
    2>&1 | tee "$LOGDIR/$tag.log"
}

case "$STAGE" in
  eager)
    # Plain eager baseline: steady-state step time and loss for the A/B (no profiler attached).
    run eager model.cuda_graph_impl=none
    ;;
  profile)
    # Look at the timeline: GPU idle gaps between short kernels (norms, RoPE, softmax bits,
    # optimizer/logging) are what a graph removes. Big back-to-back GEMMs with no gaps means
    # compute-bound: stop here and keep cuda_graph_impl=none.
    nsys profile -t cuda,nvtx -o "$LOGDIR/eager_profile" --capture-range=cudaProfilerApi \
      torchrun --nproc-per-node 8 scripts/training/run_recipe.py "${COMMON[@]}" \
        model.cuda_graph_impl=none \
        profiling.use_nsys_profiler=true profiling.profile_step_start=20 profiling.profile_step_end=23 \
      2>&1 | tee "$LOGDIR/eager_profile.log"
    ;;
  attn)
    # Dense model: start with the narrowest scope that pays.
    run attn "${GRAPH_BASE[@]}" 'model.cuda_graph_modules=[attn]'
    ;;
  attn_mlp)
    # Widen only after the attn A/B showed a real gain and memory stayed comfortable.
    run attn_mlp "${GRAPH_BASE[@]}" 'model.cuda_graph_modules=[attn,mlp]'
    ;;
  *) echo "unknown stage $STAGE" >&2; exit 2 ;;
esac

# Afterwards:
#   grep -E "graphable layers|Start CUDA Graphs capture|Time spent in CUDA Graphs capture" "$LOGDIR"/attn.log
#   skill-tools logs "$LOGDIR/eager.log" "$LOGDIR/attn.log" --json
# The comparison must use steady-state iterations after capture: the warmup steps and the capture
# step (first step after warmup) are excluded. Loss should track eager to bf16 noise.
