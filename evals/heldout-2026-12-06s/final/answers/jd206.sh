#!/usr/bin/env bash
# Mixtral-style MoE, 8xH100, PP=8, TE CUDA graphs on attention: make the graph capture fit.
#
# What's going on:
#   make_graphed_callables() allocates static input/output/grad buffers plus a private
#   memory pool for every graphed layer, and keeps them for the whole run. Eager mode
#   reuses activation memory step to step; graphs pin their buffers. That's the gap
#   between "40% in eager" and an OOM inside capture.
#
#   Those graphs are per *layer*. The micro-batches are replayed through the same
#   per-layer graph, so the number of micro-batches (GBS / MBS / DP) does not change graph
#   memory. Don't bother lowering GBS. Raising MBS actually makes every static buffer
#   bigger. Keep MBS=1.
#
#   The levers that do matter: fragmentation in the caching allocator (the pools are
#   allocated mid-step, between eager activations), how much of each layer you graph, and
#   the TE version (TE >= 2.7 shares input/output buffers between graphs).

set -euo pipefail

# Allocator: expandable segments cut fragmentation around the graph pools.
# NCCL_GRAPH_REGISTER=0 is mandatory with it for TE graphs: MCore's TE graph helper
# asserts on it (NCCL graph user-buffer registration + expandable segments -> IMA).
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0
export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS=8
TP=1; PP=8; EP=1
MBS=1; GBS=128            # unchanged: micro-batch count doesn't drive graph memory

torchrun --nproc-per-node ${GPUS} pretrain_gpt.py \
  --tensor-model-parallel-size ${TP} \
  --pipeline-model-parallel-size ${PP} \
  --expert-model-parallel-size ${EP} \
  --micro-batch-size ${MBS} --global-batch-size ${GBS} \
  --num-experts 8 --moe-router-topk 2 \
  --moe-token-dispatcher-type alltoall \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-scope attn \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker \
  --use-distributed-optimizer \
  "$@"

# If it still OOMs:
#  - confirm it's graph memory: same command with --cuda-graph-impl none, compare peak mem
#    right after the capture step;
#  - upgrade TE (>= 2.7 enables _reuse_graph_input_output_buffers in MCore's helper);
#  - remember graphs are a speed feature: if eager only just fits, run eager.
