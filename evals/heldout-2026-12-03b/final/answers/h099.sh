#!/bin/bash
#SBATCH -N 4
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH -t 06:00:00
#SBATCH -J gpt-fullgraph
# megatron-core 0.16: the full-iteration graph can't contain the NaN check's host sync.
# Megatron-LM spells the fix --no-check-for-nan-in-loss-and-grad (Bridge:
# rerun_state_machine.check_for_nan_in_loss=False + ddp.check_for_nan_in_grad=False).
GRAPH_ARGS="--cuda-graph-impl local --cuda-graph-scope full_iteration --cuda-graph-warmup-steps 3 --te-rng-tracker --no-check-for-nan-in-loss-and-grad"

srun --container-image=$IMAGE --container-mounts=/lustre:/lustre \
  python /workspace/Megatron-LM/pretrain_gpt.py $MODEL_ARGS $TRAIN_ARGS $DATA_ARGS $GRAPH_ARGS
