#!/bin/bash
#SBATCH -N 8 --ntasks-per-node=8 --gpus-per-node=8
# Megatron-LM core 0.19, 70B dense: selective recompute outside the graphed region
# (full recompute would wrap the TE attn graph -> "full recompute is only supported with
#  full iteration CUDA graph.")
export CUDA_DEVICE_MAX_CONNECTIONS=1

srun --container-image "$IMAGE" python pretrain_gpt.py \
    $MODEL_ARGS \
    --tensor-model-parallel-size 8 --pipeline-model-parallel-size 4 \
    --seq-length 4096 --micro-batch-size 1 --global-batch-size 512 \
    --recompute-granularity selective \
    --recompute-modules mlp \
    --cuda-graph-impl transformer_engine \
    --cuda-graph-modules attn \
    --cuda-graph-warmup-steps 3 \
    --te-rng-tracker \
    --bf16 $DATA_ARGS $OPT_ARGS
# Alternative: keep --recompute-granularity full and use --cuda-graph-impl full_iteration
# together with --no-check-for-nan-in-loss-and-grad.
