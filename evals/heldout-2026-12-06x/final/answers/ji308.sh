#!/usr/bin/env bash
# nan_bisect.sh: A/B the Qwen3-235B NaN (TE attn graphs + EP overlap)
#
# What we know: graphs off -> stable; TE `attn` graphs + overlap_moe_expert_parallel_comm
# -> grad norm explodes, NaN ~iter 90. Same picture as the open Megatron-LM#5966.
# Plan: same seed/data, log every iteration, compare curves from the first replayed
# step (iter 4 with 3 warmup steps), not just where it finally NaNs.
#
# Usage: RUN=eager|graphs|graphs_noep|graphs_fix ./nan_bisect.sh
set -euo pipefail

RUN=${RUN:-graphs}
COMMON=(
  --tensor-model-parallel-size 2
  --pipeline-model-parallel-size 8
  # + your existing VPP=4 layout flags, unchanged
  --expert-model-parallel-size 8
  --moe-token-dispatcher-type alltoall
  --seed 1234
  --log-interval 1
  --eval-interval 100000                        # no validation inside the window
  --train-iters 150
  # keep the NaN checks ON: with TE-scoped graphs they run outside the capture
)

GRAPHS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

EP_OVERLAP=(
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
)

case "$RUN" in
  eager)       EXTRA=("${EP_OVERLAP[@]}") ;;
  graphs)      EXTRA=("${GRAPHS[@]}" "${EP_OVERLAP[@]}") ;;
  graphs_noep) EXTRA=("${GRAPHS[@]}") ;;                # isolates the EP-overlap interaction
  graphs_fix)
    # Candidate fix. With delay_wgrad_compute the graphed attn wgrad is accumulated
    # later, outside the captured region. With gradient-accumulation fusion on, TE
    # writes straight into main_grad through a pointer captured at graph-build time.
    # After the DDP buffer is re-bound (bucket reset / grad zeroing) replay keeps
    # accumulating into the old address, which is exactly the "grad norm drifts up,
    # then NaN" signature. Turning fusion off makes TE hand back a regular .grad that
    # DDP accumulates itself, so nothing stale is baked into the graph. Costs a few %
    # step time.
    EXTRA=("${GRAPHS[@]}" "${EP_OVERLAP[@]}" --no-gradient-accumulation-fusion) ;;
  *) echo "unknown RUN=$RUN"; exit 2 ;;
esac

export CUDA_DEVICE_MAX_CONNECTIONS=32   # EP overlap wants >1 (see arguments.py warning)

torchrun --nnodes "${NNODES:-16}" --nproc-per-node 8 pretrain_gpt.py \
  ${MODEL_ARGS:-} ${DATA_ARGS:-} \
  "${COMMON[@]}" "${EXTRA[@]}" 2>&1 | tee "nan_${RUN}.log"

# Afterwards:
#   grep -E "iteration +[0-9]+/" nan_eager.log  | awk '{...}' > eager.tsv   (loss, grad norm)
#   same for nan_graphs.log / nan_graphs_fix.log, then plot them together.
# If graphs_fix tracks eager and graphs doesn't, keep fusion off for this job and
# upgrade TE/MCore when a fix for #5966 lands. If graphs_noep is also stable,
# it's the overlap schedule itself: drop `attn` from the graphed modules.
