#!/bin/bash
#SBATCH -N 1
#SBATCH --gpus-per-node=8
#SBATCH --ntasks-per-node=8
#SBATCH -t 01:00:00
#SBATCH -J qwen3-30b-a3b-fp8-fullgraph
# Calling scripts/performance/run_script.py directly skips the performance launcher, whose
# PerfEnvPlugin normally injects the allocator / CUDA-graph environment. Set it by hand:
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True
export TORCH_NCCL_AVOID_RECORD_STREAMS=0
export NCCL_NVLS_ENABLE=0
export NCCL_GRAPH_REGISTER=0     # mandatory next to expandable segments with graphs
export CUDA_DEVICE_MAX_CONNECTIONS=32

srun --container-image=$IMAGE --container-mounts=/lustre:/lustre \
  python /opt/Megatron-Bridge/scripts/performance/run_script.py \
    --model_family_name qwen --model_recipe_name qwen3_30b_a3b --gpu b300 --compute_dtype fp8_mx
