#!/bin/bash
#SBATCH --job-name=llm-te-graphs --nodes=4 --gpus-per-node=8 --ntasks-per-node=8
# Keep expandable segments; TE CUDA graphs need NCCL graph buffer registration off with it.
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0
export CUDA_DEVICE_MAX_CONNECTIONS=1

srun --export=ALL --container-image="$IMAGE" --container-mounts="$MOUNTS" \
  python pretrain_gpt.py \
    $MODEL_ARGS $PARALLEL_ARGS $DATA_ARGS \
    --cuda-graph-impl transformer_engine \
    --cuda-graph-modules attn \
    `# core 0.18+; on 0.16/0.17 use --cuda-graph-scope attn` \
    --te-rng-tracker \
    --bf16
