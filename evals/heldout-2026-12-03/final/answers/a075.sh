#!/bin/bash
# Dynamic-engine serving with decode CUDA graphs (megatron-core 0.19).
# Inference graphs = local impl; TE/full_iteration only allow inference scope "none".
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun --nproc-per-node 1 examples/inference/advanced/gpt_dynamic_inference.py \
  $MODEL_ARGS --load "$CKPT" --bf16 \
  --micro-batch-size 1 \
  --cuda-graph-impl local \
  --inference-cuda-graph-scope block \
  --inference-dynamic-batching-num-cuda-graphs -1 \
  --inference-dynamic-batching-max-requests 256 \
  --te-rng-tracker --inference-rng-tracker
# "layer" instead of "block" captures per layer (more launches, less memory).
