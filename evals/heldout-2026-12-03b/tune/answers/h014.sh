#!/bin/bash
#SBATCH -N 1
#SBATCH --gpus-per-node=8
#SBATCH -t 00:30:00
#SBATCH -J gpt-decode-graphs
# Dynamic inference engine, megatron-core 0.19, FP8 (mxfp8) decode with block-level CUDA graphs.
export CUDA_DEVICE_MAX_CONNECTIONS=1
srun --container-image=$IMAGE --container-mounts=/lustre:/lustre \
  python /workspace/Megatron-LM/examples/inference/gpt/gpt_dynamic_inference.py \
    --load /lustre/ckpts/gpt-8b \
    --tensor-model-parallel-size 1 \
    --transformer-impl transformer_engine \
    --fp8-format e4m3 --fp8-recipe mxfp8 \
    --cuda-graph-impl local \
    --inference-cuda-graph-scope block \
    --inference-dynamic-batching-num-cuda-graphs -1
# Note: transformer_engine / full_iteration graphs can't be used for decode (inference scope must be none).
