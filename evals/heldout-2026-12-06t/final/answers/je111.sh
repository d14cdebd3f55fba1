#!/usr/bin/env bash
# Full-iteration CUDA graph with Megatron Bridge on megatron-core 0.16.1.
#
# In 0.16/0.17 there is no cuda_graph_impl="full_iteration" (that arrives in 0.18).
# Full iteration there is the MCore *local* implementation with scope ["full_iteration"].
# TE + full_iteration is rejected on 0.16 ("To use full iteration cuda graph, please use
# cuda_graph_impl=local instead of cuda_graph_impl=transformer_engine.").
#
# The loss/grad NaN checks sync with the host, which can't happen inside the captured
# graph, so both go off. Bridge asserts on check_for_nan_in_loss.
set -euo pipefail

RECIPE=${RECIPE:-llama31_8b_pretrain_config}   # any dense GPT recipe

torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe "${RECIPE}" \
  model.cuda_graph_impl=local \
  "model.cuda_graph_scope=[full_iteration]" \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false

# Python equivalent, if you build the ConfigContainer yourself:
#   cfg.model.cuda_graph_impl = "local"
#   cfg.model.cuda_graph_scope = ["full_iteration"]   # list it alone
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#   cfg.rerun_state_machine.check_for_nan_in_loss = False
#   cfg.ddp.check_for_nan_in_grad = False
#
# Do NOT use cuda_graph_modules or cuda_graph_impl="full_iteration" on this image (0.18+ only).
#
# Checklist:
#  - static shapes: fixed seq_length + micro-batch size, no unpadded packing
#  - dense model (dropless MoE dispatch does a host sync -> capture fails)
#  - no CPU offloading (rejected with any graph impl on 0.16)
#  - memory headroom: the graph pool stays allocated
#  - log should show "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!"
#  - time iterations 5+ (after the capture in iteration 4) against an eager run
