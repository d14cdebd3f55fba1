#!/bin/bash
#flux: -N 1
#flux: --exclusive
#flux: -t 6h
#flux: --job-name=mixtral-pp8-tegraphs
#flux: --output=logs/mixtral-pp8-{{id}}.out
#
# Mixtral 8x7B, 8xH100, PP=8, TE CUDA graphs on attn (megatron-core 0.19 spelling).
#
# Why the previous job OOM'd inside make_graphed_callables although eager sat at ~40% HBM:
#   with PP>1 TECudaGraphHelper captures one graph per (layer, micro-batch). Each graph owns
#   static input/output/grad buffers and pool memory that stay resident for the whole run.
#   PP=8 on 8 GPUs -> DP=1 -> GBS/(MBS*DP) = 128/1 = 128 micro-batches, x 4 layers per stage
#   = 512 graphs per rank. Eager never holds all of that at once.
#
# Changes vs the failing job:
#   1. MBS 1 -> 4: 32 micro-batches instead of 128 (4x fewer captured graphs);
#      activation memory per micro-batch grows, watch the first eager steps.
#   2. scope stays attn only (narrowest useful scope; do not widen on this job).
#   3. allocator: expandable segments to cut fragmentation around capture.
#   4. needs a TE >= 2.7 container so MCore turns on graph input/output buffer reuse.
# Graphs are a throughput feature: if this still does not fit, run eager (--cuda-graph-impl none).

set -euo pipefail

export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

MODEL_ARGS=(
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336
  --num-attention-heads 32 --group-query-attention --num-query-groups 8
  --seq-length 4096 --max-position-embeddings 32768
  --num-experts 8 --moe-router-topk 2 --moe-token-dispatcher-type alltoall
  --moe-grouped-gemm --normalization RMSNorm --swiglu --disable-bias-linear
  --position-embedding-type rope --untie-embeddings-and-output-weights
)

PAR_ARGS=(
  --tensor-model-parallel-size 1
  --pipeline-model-parallel-size 8
  --expert-model-parallel-size 1
  --micro-batch-size 4
  --global-batch-size 128
  --use-distributed-optimizer
  --bf16
)

GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

flux run -N 1 -n 1 -c 64 -g 8 \
  torchrun --nproc-per-node 8 --master-port 29500 pretrain_gpt.py \
    "${MODEL_ARGS[@]}" "${PAR_ARGS[@]}" "${GRAPH_ARGS[@]}" \
    ${DATA_ARGS:-} ${TRAIN_ARGS:-} \
    --log-interval 1 2>&1 | tee logs/mixtral-pp8-${FLUX_JOB_ID:-local}.log

# After the run, check: every PP stage logs "Rank N: K graphable layers." with K > 0,
# "Time spent in CUDA Graphs capture" appears once, and compare steady-state step time
# (skip warmup + capture step) against an eager run with the same seed.
