#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH -t 04:00:00
#SBATCH -J gpt-fullgraph-016

export CUDA_DEVICE_MAX_CONNECTIONS=1
export NVTE_FWD_LAYERNORM_SM_MARGIN=0
export NVTE_BWD_LAYERNORM_SM_MARGIN=0
export TORCH_NCCL_AVOID_RECORD_STREAMS=1

# megatron-core 0.16.1: full-iteration graph = local impl + scope [full_iteration]
OVERRIDES="model.cuda_graph_impl=local \
model.cuda_graph_scope=[full_iteration] \
model.cuda_graph_warmup_steps=3 \
model.use_te_rng_tracker=true \
rng.te_rng_tracker=true \
rerun_state_machine.check_for_nan_in_loss=false \
ddp.check_for_nan_in_grad=false"

srun --container-image=$IMAGE --container-mounts=/lustre:/lustre \
  python /workspace/Megatron-Bridge/scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config $OVERRIDES
