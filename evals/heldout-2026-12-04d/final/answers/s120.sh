#!/bin/bash
#SBATCH --job-name=llama-fullgraph
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
#SBATCH --time=02:00:00
# megatron-core 0.16.1 + Megatron Bridge: one CUDA graph for the whole training iteration.

set -euo pipefail

OVR=${SLURM_SUBMIT_DIR}/cuda_graph_full_iter.overrides

# One ConfigContainer override per line; fed to run_recipe.py as trailing KEY=VALUE args.
cat > "${OVR}" <<'EOF_OVR'
model.cuda_graph_impl=full_iteration
model.cuda_graph_scope=[]
model.cuda_graph_warmup_steps=3
model.use_te_rng_tracker=true
rng.te_rng_tracker=true
rerun_state_machine.check_for_nan_in_loss=false
ddp.check_for_nan_in_grad=false
train.micro_batch_size=1
EOF_OVR
# impl=full_iteration: forward+backward in one graph (optimizer stays eager);
# per-layer scope list left empty; NaN checks off because they sync with the host
# inside the captured step; TE RNG tracker on (required with any graph);
# fixed micro-batch / seq length so the captured shapes never change.

mapfile -t CG_OVERRIDES < "${OVR}"

srun --container-image="${IMAGE}" --container-mounts="${SLURM_SUBMIT_DIR}:${SLURM_SUBMIT_DIR}" \
  torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
    --recipe llama3_8b_pretrain_config \
    --seq_length 8192 \
    "${CG_OVERRIDES[@]}"

# Afterwards: grep the log for "Capture CUDA graph for training!!!" and
# "CUDA graph capture done for training!!!", then compare post-capture step
# times with an eager run at the same seed.
