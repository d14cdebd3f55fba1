#!/usr/bin/env bash
# Mixtral-style MoE, 8xH100, PP=8, MBS=1, GBS=128, TE graphs
# Fix for: OOM inside make_graphed_callables while eager sits at ~40% HBM.
#
# What's going on:
#   TE's make_graphed_callables keeps a static input/output/grad buffer set plus a
#   private mempool slice for every graph it records. With PP>1 MCore records one graph
#   per (layer, virtual-stage) slot in the 1F1B schedule, so the number of live graph
#   buffers is bounded by the pipeline depth (the number of in-flight slots per stage),
#   and the microbatches simply replay those same graphs in turn. That's why
#   lowering GBS / the microbatch count won't shrink graph memory here -- don't bother
#   trading away batch size for it.
#   What does inflate it: the warmup passes MCore/TE run before capture (each one
#   allocates through the graph pool), whole-layer scope on MoE layers, and allocator
#   fragmentation from the pool churn.

set -euo pipefail

# 1) Allocator: fight fragmentation. NCCL_GRAPH_REGISTER=0 is mandatory next to
#    expandable segments with the TE impl (MCore asserts it at startup).
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0
export CUDA_DEVICE_MAX_CONNECTIONS=1

# 2) Narrow the scope to the launch-bound parts of a dropless MoE layer,
#    3) Cut warmup to the minimum that still avoids capturing lazy init.
#    (0.18+ spelling; on 0.16/0.17 use --cuda-graph-scope instead of --cuda-graph-modules)
GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn moe_router moe_preprocess
  --cuda-graph-warmup-steps 1
  --te-rng-tracker
)

PARALLEL_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 8
  --expert-model-parallel-size 1
  --micro-batch-size 1
  --global-batch-size 128      # keep as is; see note above
)

torchrun --nproc-per-node 8 pretrain_gpt.py \
  "${PARALLEL_ARGS[@]}" \
  "${GRAPH_ARGS[@]}" \
  "$@"

# If it still OOMs: upgrade TE (>= 2.7) + MCore so make_graphed_callables reuses
# input/output buffers between graphs, or drop moe_preprocess from the modules.
# Graphs need memory headroom; they won't make a run fit that barely fits eager.
