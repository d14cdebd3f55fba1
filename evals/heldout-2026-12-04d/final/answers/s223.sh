#!/bin/bash
#BSUB -J mixtral-pp8-tegraphs
#BSUB -nnodes 1
#BSUB -W 02:00
#BSUB -o mixtral-pp8-%J.out
#
# Why the old job OOM'd inside make_graphed_callables:
#   PP=8 on 8 GPUs -> DP=1, so MBS=1/GBS=128 meant 128 microbatches per step.
#   With PP>1 the TE helper captures a graph for every layer on the stage *for every
#   microbatch* (4 layers x 128 microbatches here), each with static in/out/grad buffers and
#   pool memory. Eager frees activations as 1F1B drains; graphs keep theirs resident.
#   CUDA graphs need headroom on top of eager. They do not help a model fit.
#
# What this job changes:
#   1. MBS 1 -> 4: 32 microbatches instead of 128 (~4x fewer graphs). Same GBS, same math.
#   2. Graph only attention (no moe/moe_router widening until this fits).
#   3. Allocator: expandable segments *with* NCCL_GRAPH_REGISTER=0. The TE impl asserts
#      without it ("Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory access ...").
#   4. Use a container with TE >= 2.7 so MCore turns on _reuse_graph_input_output_buffers
#      (input/output buffers shared across graphs). Newer TE/MCore reuse more (TE PR #3427).

export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0
export CUDA_DEVICE_MAX_CONNECTIONS=1

# megatron-core 0.16/0.17 name the scope list --cuda-graph-scope; 0.18+ call it --cuda-graph-modules.
MCORE_MINOR=$(python -c "import megatron.core as m; print(m.__version__.split('.')[1])")
if [ "$MCORE_MINOR" -ge 18 ]; then
  GRAPH_ARGS="--cuda-graph-impl transformer_engine --cuda-graph-modules attn"
else
  GRAPH_ARGS="--cuda-graph-impl transformer_engine --cuda-graph-scope attn"
fi

jsrun -n 1 -a 1 -g 8 -c 56 torchrun --nproc-per-node 8 pretrain_gpt.py \
  --pipeline-model-parallel-size 8 \
  --tensor-model-parallel-size 1 \
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 \
  --num-attention-heads 32 --group-query-attention --num-query-groups 8 \
  --num-experts 8 --moe-router-topk 2 \
  --micro-batch-size 4 \
  --global-batch-size 128 \
  --seq-length 4096 --bf16 \
  $GRAPH_ARGS \
  --te-rng-tracker \
  --log-memory-to-tensorboard \
  "$@"

# After capture, read the peak memory in the log and compare steady-state step time against an
# eager run (--cuda-graph-impl none, same MBS). If it still does not fit at MBS 4, graphs are
# not worth the memory here. Run eager rather than cutting the model further.
