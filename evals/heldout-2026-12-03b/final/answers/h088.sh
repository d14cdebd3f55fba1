#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH -t 08:00:00
# Keep expandable segments: the assert only wants NCCL's graph user-buffer registration off,
# because registered buffers inside a graph can point at remapped segments (illegal memory access).
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0
# NOTE: only cuda_graph_impl=transformer_engine needs NCCL_GRAPH_REGISTER=0. MCore's local
# implementation has never checked it, so jobs that use local graphs can drop this export.
srun --container-image=$IMAGE --container-mounts=/lustre:/lustre python /workspace/Megatron-LM/pretrain_gpt.py $ARGS
