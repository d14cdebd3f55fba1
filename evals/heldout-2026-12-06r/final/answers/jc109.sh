#!/usr/bin/env bash
# full-iteration CUDA graph, megatron-core 0.19 + Megatron Bridge
# One graph for forward+backward (optimizer step stays outside).
# Any CPU<->GPU sync inside the iteration breaks capture -> NaN checks must go.
set -euo pipefail

torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
  --recipe llama31_8b_pretrain_config \
  model.cuda_graph_impl=full_iteration \
  'model.cuda_graph_modules=[]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false

# Notes
# - cuda_graph_modules must stay empty with full_iteration (MCore asserts it).
# - the NaN checks do a .item()-style host sync; Bridge refuses check_for_nan_in_loss=True here.
#   Plain Megatron-LM equivalent: --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad
# - keep seq length / MBS static; don't pair this with param-gather overlap on the optimizer step.
# - time steady-state iterations after capture, not the capture iteration.
