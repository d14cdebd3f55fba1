#!/bin/bash
# Megatron-LM (core 0.19) pretrain_gpt.py — MoE with drop-and-pad, TE CUDA graphs on attn + moe
export CUDA_DEVICE_MAX_CONNECTIONS=1

MOE_ARGS="--num-experts 64 --moe-router-topk 8 \
  --moe-token-dispatcher-type alltoall \
  --moe-expert-capacity-factor 1.0 \
  --moe-pad-expert-input-to-capacity \
  --expert-model-parallel-size 8"

# drop-and-pad gives static expert shapes, so the whole MoE block can be graphed.
# do NOT add moe_router/moe_preprocess next to moe (MCore rejects the combination)
GRAPH_ARGS="--cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn moe \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker"

torchrun --nproc-per-node 8 pretrain_gpt.py \
  ${MODEL_ARGS} ${MOE_ARGS} ${GRAPH_ARGS} \
  --seq-length 4096 --micro-batch-size 1 --global-batch-size 256 \
  --bf16 ${DATA_ARGS} ${LOG_ARGS}
