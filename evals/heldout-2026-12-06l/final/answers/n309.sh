#!/bin/bash
# Bisect the NaN-at-iter-90 with TE-scoped CUDA graphs on Qwen3-235B (Megatron-LM, mcore 0.19).
# One array task per variant, identical seed/data/batch; compare grad-norm curves afterwards.
#
#   sbatch --array=0-3 bisect_cg_nan.sbatch
#   grep -h "grad norm" logs/cgnan-*.out | ...   # or overlay in tensorboard
#
#SBATCH --job-name=cgnan
#SBATCH --nodes=16
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --time=02:00:00
#SBATCH --output=logs/cgnan-%A_%a.out
#SBATCH --exclusive

set -euo pipefail

# Your existing model/data/optimizer args (Qwen3-235B-A22B shape, tokenizer, data paths, lr schedule,
# --bf16, --use-distributed-optimizer, --overlap-grad-reduce, --overlap-param-gather, ...).
source ./qwen3_235b_common.sh      # defines MODEL_ARGS DATA_ARGS OPT_ARGS (incl. uneven first/last stage layer split)

PARALLEL_ARGS="--tensor-model-parallel-size 2 --pipeline-model-parallel-size 8 \
  --num-virtual-stages-per-pipeline-rank 4 --expert-model-parallel-size 8 \
  --sequence-parallel --moe-token-dispatcher-type alltoall"

EP_OVERLAP_ARGS="--overlap-moe-expert-parallel-comm --delay-wgrad-compute"

CG_ARGS="--cuda-graph-impl transformer_engine --cuda-graph-modules attn --cuda-graph-warmup-steps 3 --te-rng-tracker"

COMMON="--seed 1234 --train-iters 120 --log-interval 1 --eval-interval 100000 --eval-iters 0 \
  --log-num-zeros-in-grad --log-params-norm"

case "${SLURM_ARRAY_TASK_ID}" in
  0)  # A: exact repro (expect NaN ~90)
      NAME=repro;   VARIANT="$PARALLEL_ARGS $EP_OVERLAP_ARGS $CG_ARGS" ;;
  1)  # B: graphs off, everything else identical (expect clean)
      NAME=eager;   VARIANT="$PARALLEL_ARGS $EP_OVERLAP_ARGS" ;;
  2)  # C: graphs on, EP overlap off (delay-wgrad must go with it: it requires EP overlap)
      NAME=noepovl; VARIANT="$PARALLEL_ARGS $CG_ARGS" ;;
  3)  # D: graphs + EP overlap, but plain 1F1B instead of interleaved: rules out the
      #    TE graph ordering under the interleaved (VPP) schedule, TE #1138/#1233-style bugs
      NAME=novpp
      VARIANT="--tensor-model-parallel-size 2 --pipeline-model-parallel-size 8 \
        --expert-model-parallel-size 8 --sequence-parallel --moe-token-dispatcher-type alltoall \
        $EP_OVERLAP_ARGS $CG_ARGS" ;;
esac

export CUDA_DEVICE_MAX_CONNECTIONS=1
export NCCL_GRAPH_REGISTER=0     # harmless here; avoids IMA if someone sets expandable_segments

srun --mpi=pmix --container-image="${IMAGE}" --container-mounts="${MOUNTS}" \
  python pretrain_gpt.py \
    $MODEL_ARGS $DATA_ARGS $OPT_ARGS $COMMON $VARIANT \
    --tensorboard-dir "tb/cgnan-${NAME}" --wandb-exp-name "cgnan-${NAME}"

# Reading it:
#   A NaN, B clean            -> graph replay numerics (not data / LR).
#   C clean                   -> partial graphs x EP-overlap schedule (Megatron-LM#5966, open): keep one of the two off.
#   D clean                   -> interleaved ordering of the graphed callables; upgrade TE/MCore.
#   all graph variants NaN    -> upgrade TE + MCore first (TE #1204 wgrad-fusion toggle, #1138/#1233 param order),
#                                keep --gradient-accumulation-fusion on, then rerun A vs B and overlay loss curves.
# Until an upgraded A matches B, run this model with --cuda-graph-impl none.
