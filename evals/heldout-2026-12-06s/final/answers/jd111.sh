#!/usr/bin/env bash
# Full-iteration CUDA graph on megatron-core 0.16.1 + Megatron Bridge.
#
# 0.16.x / 0.17.x spelling: cuda_graph_impl="local" + cuda_graph_scope=["full_iteration"].
# cuda_graph_impl="full_iteration" and cuda_graph_modules only exist from megatron-core 0.18,
# and the TE impl refuses full_iteration ("To use full iteration cuda graph, please use
# cuda_graph_impl=local instead of cuda_graph_impl=transformer_engine.").
#
# Same thing on the ConfigContainer in Python:
#   cfg.model.cuda_graph_impl = "local"
#   cfg.model.cuda_graph_scope = ["full_iteration"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#   cfg.rerun_state_machine.check_for_nan_in_loss = False
#   cfg.ddp.check_for_nan_in_grad = False
set -euo pipefail

# Only matters if you use expandable segments: NCCL graph registration + expandable
# segments can hit illegal memory accesses under graphs (0.16's local graph manager
# asserts on it for CC < 10, i.e. Hopper). Turning registration off is harmless otherwise.
if [[ "${PYTORCH_CUDA_ALLOC_CONF:-}" == *"expandable_segments:True"* ]]; then
  export NCCL_GRAPH_REGISTER=0
fi

# "full_iteration" must be the only entry in the list.
# The NaN checks sync with the host; a whole-iteration graph can't contain that, so both
# go off (Bridge asserts on the loss one: "check_for_nan_in_loss must be disabled when
# using full_iteration CUDA graph.").
torchrun --nproc-per-node 8 "${TRAIN_SCRIPT:?path to your Bridge recipe/pretrain entry point}" \
  model.cuda_graph_impl=local \
  "model.cuda_graph_scope=[full_iteration]" \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false \
  "$@"

# Before running, make sure:
#  - seq_length and micro_batch_size are fixed (no variable-length or unpadded packed batches)
#  - cpu_offloading is off (0.16 rejects CUDA graphs with CPU offloading)
#  - the model is dense, or MoE with drop-and-pad; dropless MoE fails at capture
#    (the dispatcher copies token counts to the host)
# In the log: "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!".
# Iteration 4 includes capture; time iterations 5+ against an eager run.
