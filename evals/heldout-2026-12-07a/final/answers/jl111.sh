#!/usr/bin/env bash
# Full-iteration CUDA graph (fwd+bwd in one graph) -- megatron-core 0.16.1 + Megatron Bridge
#
# 0.16.x has no cuda_graph_impl="full_iteration" (added in 0.18) and no cuda_graph_modules.
# Full iteration is spelled:   local impl  +  cuda_graph_scope=[full_iteration]
#
# Companion settings:
#   - NaN checks off: the loss/grad NaN checks sync with the host, which can't happen inside a
#     captured iteration. Bridge asserts on the loss one ("check_for_nan_in_loss must be disabled
#     when using full_iteration CUDA graph.").
#   - TE RNG tracker on (required for any CUDA graph).
#   - warmup >= 1 (eager iterations before capture); 3 is the default.
#   - fixed seq_length / micro_batch_size for the whole run.
set -euo pipefail

RECIPE=${RECIPE:-llama31_8b_pretrain_config}

torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe "${RECIPE}" \
  model.cuda_graph_impl=local \
  "model.cuda_graph_scope=[full_iteration]" \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false

# Notes
# * List full_iteration alone in the scope. Don't mix it with attn/mlp.
# * This is Bridge's training loop. Megatron-LM's own pretrain_gpt.py on core 0.16/0.17 fails at
#   capture with this spelling (get_batch copies cu_seqlens from the host inside the graph), so
#   don't take a pretrain_gpt.py failure as a verdict on the Bridge config.
# * Not for dropless MoE (dispatcher host syncs). Use TE per-layer moe_router/moe_preprocess.
# * Check the log for "Capture CUDA graph for training!!!" / "CUDA graph capture done for
#   training!!!", then compare step times after the capture iteration against eager.
# * When you move to 0.18+: cuda_graph_impl=full_iteration, cuda_graph_modules=[] instead.
