#!/usr/bin/env bash
# Mixtral-style MoE, 8xH100, PP=8 -- TE attn graphs OOM inside make_graphed_callables
#
# Why: with PP>1 MCore's TECudaGraphHelper captures each graphed layer once per
# microbatch (num_microbatches = GBS / (MBS*DP) = 128 here), and every captured
# graph keeps its static input/output/grad buffers resident. 4 layers/stage x 128
# microbatches = 512 graphs per rank. Eager at 40% HBM says nothing about that.
#
# Fix: fewer microbatches + allocator that doesn't fragment under graph pools.

set -euo pipefail

# Allocator: lets the caching allocator grow segments instead of fragmenting into
# many pinned graph-pool blocks.
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
# NCCL_GRAPH_REGISTER is only relevant for --cuda-graph-impl local (MCore's local
# CudaGraphManager checks it on pre-Blackwell). TE per-layer graphs don't capture
# registered NCCL buffers, so keep NCCL's default registration on for the EP all-to-all.

export CUDA_DEVICE_MAX_CONNECTIONS=1

# MBS 1 -> 4 at the same GBS: 128 -> 32 microbatches => 4x fewer captured graphs.
# Needs TE >= 2.7 so MCore can pass _reuse_graph_input_output_buffers=True.
torchrun --nproc-per-node 8 pretrain_gpt.py \
  --pipeline-model-parallel-size 8 \
  --expert-model-parallel-size 1 \
  --micro-batch-size 4 \
  --global-batch-size 128 \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker \
  "$@"

# If this still OOMs at capture, run this layout eager (--cuda-graph-impl none):
# graphs need memory headroom; they are not a way to make a run fit.
