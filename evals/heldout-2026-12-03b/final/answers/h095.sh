#!/bin/bash
#SBATCH --job-name=llama31-8b-cg
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --time=02:00:00
#SBATCH --exclusive
#SBATCH --output=logs/%x_%j.out

# Llama 3.1 8B, Megatron Bridge on megatron-core 0.19, TP=1 PP=1, seq 8192, MBS 1.
# Step 1 was an eager run of the same job (no graph overrides) with nsys; it showed launch gaps,
# so this job turns on TE-scoped CUDA graphs for attention. Compare step times after iteration ~10
# (post-capture replay) with the eager job; do not count the capture iteration.

CONTAINER=nvcr.io/nvidia/nemo:26.02
WORKDIR=/lustre/fsw/$USER/Megatron-Bridge

srun --container-image=$CONTAINER --container-mounts=/lustre:/lustre --no-container-mount-home \
  bash -c "cd $WORKDIR && python scripts/training/run_recipe.py \
    --recipe llama31_8b_pretrain_config \
    model.seq_length=8192 dataset.seq_length=8192 train.micro_batch_size=1 \
    model.cuda_graph_impl=transformer_engine \
    'model.cuda_graph_modules=[attn]' \
    model.cuda_graph_warmup_steps=3 \
    model.use_te_rng_tracker=true \
    rng.te_rng_tracker=true"
