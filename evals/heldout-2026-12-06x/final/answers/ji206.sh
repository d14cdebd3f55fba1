#!/usr/bin/env bash
# Mixtral-style MoE, 8xH100, PP=8, MBS=1, GBS=128, TE graphs on attn.
#
# What's happening
# ----------------
# With PP>1, TECudaGraphHelper can't capture a single graph per layer: under 1F1B a stage
# has several microbatches' forwards outstanding before their backwards run, and each needs
# its own static input/output buffers. So it captures one graph per graphed layer for each
# microbatch that can be in flight at once. On the first stage that's the pipeline depth
# (PP=8 warmup microbatches); later stages have fewer. With 4 layers per stage that's up
# to 4 x 8 = 32 fwd+bwd graphs per rank, each with its own static buffers and a slice of the
# graph mempool. That, plus the allocator fragmenting during capture, is why eager sits at
# 40% and capture dies in make_graphed_callables.
#
# Note the count is set by PP depth, not by GBS: the helper only captures the in-flight
# window and replays those graphs round-robin for the rest of the step. So dropping GBS
# from 128 to 64 will not shrink graph memory; don't trade away batch size for it.
#
# What to change
# --------------
#  1. Fix fragmentation: expandable segments + NCCL_GRAPH_REGISTER=0 (MCore asserts the pair
#     for the TE impl; registration + expandable segments can cause illegal memory access).
#  2. Keep the scope narrow: attn + moe_router + moe_preprocess for dropless MoE.
#  3. Upgrade TE (>= 2.7) so make_graphed_callables reuses input/output buffers between graphs.
#  4. If it still doesn't fit, graphs aren't for this config: they need memory headroom, they
#     never help a job fit.

set -euo pipefail

export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0
export CUDA_DEVICE_MAX_CONNECTIONS=1

torchrun --nproc-per-node 8 pretrain_gpt.py \
  --pipeline-model-parallel-size 8 \
  --micro-batch-size 1 \
  --global-batch-size 128 \
  --num-experts 8 --moe-router-topk 2 \
  --moe-token-dispatcher-type alltoall \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn moe_router moe_preprocess \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker \
  "$@"
# (megatron-core 0.16/0.17: use --cuda-graph-scope instead of --cuda-graph-modules)
