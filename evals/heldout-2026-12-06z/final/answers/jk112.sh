#!/usr/bin/env bash
# Full-iteration CUDA graph, megatron-core 0.16.1 + Megatron Bridge
# (one graph for the whole fwd+bwd; optimizer step stays eager)
set -euo pipefail

# 0.16 has no cuda_graph_impl="full_iteration" value yet -- on this era the
# whole-iteration graph is requested through the scope list instead.
# Bridge's recommended capture backend is Transformer Engine, so keep TE as the impl
# and put full_iteration in the scope.
OVERRIDES=(
  model.cuda_graph_impl=transformer_engine
  "model.cuda_graph_scope=[full_iteration]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
  # NaN checks sync with the host -> not allowed inside a captured iteration
  rerun_state_machine.check_for_nan_in_loss=false
  ddp.check_for_nan_in_grad=false
)

torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe llama3_8b_pretrain_config \
  "${OVERRIDES[@]}"

# Expect after the 3 warmup steps:
#   Capture CUDA graph for training!!!
#   CUDA graph capture done for training!!!
# Keep seq_length / micro_batch_size fixed for the whole run.
