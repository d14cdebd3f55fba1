#!/usr/bin/env bash
# mixtral_pp8_tegraphs.sh — Mixtral-style MoE, 8xH100, PP=8, TE-scoped graphs on attn
#
# Why capture OOMs while eager sits at 40% HBM:
#   with PP>1 the TE helper captures one graph per graphed layer *per microbatch in
#   flight*; each has its own static input/output/grad buffers + pool memory that stay
#   resident. Memory scales with (layers per stage) x (microbatches); at MBS=1 GBS=128
#   that is 128 microbatches per stage. Eager never holds all of that.
#
# Fit plan (applied below):
#   1. fewer microbatches: MBS 1 -> 4 (128 -> 32 microbatches)
#   2. graph attention only
#   3. allocator: expandable segments so capture-time fragmentation is reclaimed
#   4. newer TE/MCore reuse graph I/O buffers across microbatches (TE PR #3427) - upgrade
# Graphs need headroom; if this still OOMs, go eager and spend HBM on batch size.

set -euo pipefail

# --- headroom probe before we spend a node-hour on capture ---
nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv,noheader

export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

torchrun --nproc-per-node 8 pretrain_gpt.py \
  --num-layers 32 --hidden-size 4096 --num-attention-heads 32 \
  --num-query-groups 8 --seq-length 4096 --max-position-embeddings 32768 \
  --num-experts 8 --moe-router-topk 2 --moe-token-dispatcher-type alltoall \
  --moe-grouped-gemm \
  --pipeline-model-parallel-size 8 --tensor-model-parallel-size 1 \
  --micro-batch-size 4 --global-batch-size 128 \
  --bf16 \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn \
  --te-rng-tracker \
  "$@"
