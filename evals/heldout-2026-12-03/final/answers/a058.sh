#!/bin/bash
# Megatron-LM core 0.19 — keep full recompute, move to full-iteration capture.
torchrun --nnodes $NNODES --nproc-per-node 8 --rdzv-endpoint $MASTER:29500 \
  pretrain_gpt.py \
  $MODEL_ARGS $PARALLEL_ARGS \
  --recompute-granularity full \
  --recompute-method uniform \
  --recompute-num-layers 1 \
  --cuda-graph-impl full_iteration \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker \
  --seq-length 4096 --micro-batch-size 1 \
  --bf16 $DATA_ARGS
# full recompute is allowed with full-iteration graphs; everything else stays at defaults.
