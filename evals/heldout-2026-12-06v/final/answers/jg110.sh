#!/usr/bin/env bash
# Full forward+backward CUDA graph, megatron-core 0.19 + Megatron Bridge.
#
# On 0.18+ full-iteration capture is its own implementation:
#   model.cuda_graph_impl=full_iteration  with an EMPTY module list
# (0.16/0.17 spelled it local + cuda_graph_scope=[full_iteration]; 0.19 still migrates
#  that with a DeprecationWarning, but use the new spelling.)
#
# NaN checks:
#  - ddp.check_for_nan_in_grad runs inside the backward/grad-reduce path, which is now
#    inside the graph, and it syncs with the host -> must be off.
#  - rerun_state_machine.check_for_nan_in_loss is evaluated by the rerun state machine on
#    the reduced loss after forward_backward_func returns, i.e. after graph replay and
#    outside the captured region, so it can stay on and you keep loss-spike detection.
#
# Keep seq_length and micro_batch_size fixed; no host syncs (.item()/.cpu()) in model code.
set -euo pipefail

torchrun --nproc-per-node 8 examples/recipes/llama/pretrain_llama3_8b.py \
  model.cuda_graph_impl=full_iteration \
  model.cuda_graph_scope=null \
  'model.cuda_graph_modules=[]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  ddp.check_for_nan_in_grad=false \
  optimizer.overlap_param_gather_with_optimizer_step=false \
  2>&1 | tee full_iter.log

# Capture evidence (logger megatron.core.full_cuda_graph):
#   "Capture CUDA graph for training!!!"
#   "CUDA graph capture done for training!!!"
grep -E "Capture CUDA graph for training|capture done for training" full_iter.log

# Iterations 1-3 are eager warmup, iteration 4 contains the capture; compare
# iterations >= 5 against an eager run with the same seed.
