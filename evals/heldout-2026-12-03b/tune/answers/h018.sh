#!/bin/bash
# megatron-core 0.17, dynamic inference engine, whole-block decode CUDA graphs.
# 0.17 has no --inference-cuda-graph-scope; the block-level graph is the scope value
# full_iteration_inference of the local implementation. (0.18+: --inference-cuda-graph-scope block)
torchrun --nproc-per-node 1 examples/inference/gpt/gpt_dynamic_inference.py \
  --load /lustre/ckpts/gpt-2b \
  --cuda-graph-impl local \
  --cuda-graph-scope full_iteration_inference \
  --inference-dynamic-batching-num-cuda-graphs -1 \
  --bf16
