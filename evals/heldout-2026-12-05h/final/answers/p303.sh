#!/bin/bash
#SBATCH --job-name=te-graphs-64g
#SBATCH --nodes=8
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --time=04:00:00
#
# POST-MORTEM (why the job sat after "[after training is done]" until the time limit)
# ---------------------------------------------------------------------------------
# Training itself finished. The hang is in teardown: captured CUDA graphs keep references to
# NCCL communicator resources/buffers, and torch.distributed.destroy_process_group() blocks
# while those graphs are still alive (pytorch/pytorch#115388; Bridge issues #3395/#3595/#2955).
#  - TE per-layer graphs (cuda_graph_impl=transformer_engine): the TECudaGraphHelper's graphs
#    were never freed before teardown on older Bridge.
#  - Full-iteration run ending with a final validation: the final evaluate() RE-captures
#    graphs for validation; those new graphs are alive at destroy time even when the
#    training graphs were deleted.
#
# FIX (preferred): upgrade.
#  - Megatron-Bridge with delete_cuda_graphs() at the end of train (PR #3459; PR #3488 guards the
#    "No CUDA Graphs were created to delete." case), and PR #5291, which deletes graphs
#    recaptured by the final evaluation before destroy_global_state().
#  - Transformer Engine >= 2.10 + current MCore: TE graphs get an explicit reset(); MCore logs
#    "... graphs deleted with explicit reset" when teardown does it right.
# If you own the loop (early exit, custom final eval): delete/reset every graph and gc.collect()
# BEFORE destroy_process_group(), never after.
#
# STOP-GAP while you cannot upgrade: run this recipe without graphs (NVIDIA did exactly that for
# the Llama3.1 405B NVFP4 GB300 recipe), or at least skip the final validation pass so nothing is
# recaptured after training graphs are freed.
#
# Belt and braces: don't let a teardown hang burn the whole allocation.

export TORCH_NCCL_ASYNC_ERROR_HANDLING=1

USE_GRAPHS=${USE_GRAPHS:-1}   # set USE_GRAPHS=0 as the stop-gap on un-upgraded stacks
if [ "$USE_GRAPHS" = "1" ]; then
  GRAPH_OVERRIDES="model.cuda_graph_impl=transformer_engine model.use_te_rng_tracker=true rng.te_rng_tracker=true"
else
  GRAPH_OVERRIDES="model.cuda_graph_impl=none"
fi

srun --kill-on-bad-exit=1 python scripts/training/run_recipe.py --recipe "${RECIPE:?set RECIPE}" ${GRAPH_OVERRIDES}

# After upgrading, confirm in the log that teardown logged "Deleting CUDA graphs" and finished
# with "Destroy COMPLETE"-style lines instead of stopping at "[after training is done]".
