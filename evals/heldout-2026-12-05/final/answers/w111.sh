#!/bin/bash
# Grid Engine job: full-iteration CUDA graph, Megatron Bridge on megatron-core 0.19
#$ -N llama_fullgraph
#$ -cwd
#$ -j y
#$ -o logs/$JOB_NAME.$JOB_ID.log
#$ -pe mpi 8
#$ -l gpu=8,h_rt=04:00:00
#$ -V

set -euo pipefail

# One CUDA graph for forward+backward of the whole iteration (optimizer step stays eager).
#
# 0.18+ spelling: cuda_graph_impl=full_iteration, cuda_graph_modules empty.
#   - the stock recipe writes cuda_graph_scope; null it, or 0.19 refuses scope+modules together
#   - "cuda_graph_modules must be empty when cuda_graph_impl="full_iteration"" -> []
# The loss/grad NaN checks sync with the host every step, which cannot happen inside a captured
# graph; Bridge asserts unless rerun_state_machine.check_for_nan_in_loss=False.
# TE RNG tracker: required for any CUDA graph, set both places.
# Leave optimizer.overlap_param_gather_with_optimizer_step off (its param gather runs outside the
# captured iteration).
OVERRIDES=(
  model.cuda_graph_impl=full_iteration
  model.cuda_graph_scope=null
  "model.cuda_graph_modules=[]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
  rerun_state_machine.check_for_nan_in_loss=false
  ddp.check_for_nan_in_grad=false
  optimizer.overlap_param_gather_with_optimizer_step=false
)

# static shapes: fixed seq length and micro batch
torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
  --model llama31_8b \
  --seq_length 8192 --micro_batch_size 1 \
  "${OVERRIDES[@]}"

# After the run: look for "Capture CUDA graph for training!!!" then
# "CUDA graph capture done for training!!!", and compare step times after capture with an
# eager run on the same seed.
