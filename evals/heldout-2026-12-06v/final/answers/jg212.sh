#!/bin/bash
# DeepSeek-style MoE with EP A2A overlap + delayed wgrad + TE CUDA graphs
# (Megatron-LM, megatron-core 0.19 flags).
#
# Requirements for this combo:
#   - Transformer Engine >= 2.10: TransformerConfig checks exactly this
#     ("TE version >= 2.10.0 is required for delay_wgrad_compute with partial cuda graph").
#     2.10 is the first release where make_graphed_callables can hold the split-out wgrad
#     in the graph, so any TE from 2.10 on works.
#   - gradient accumulation fusion ON (default; do NOT pass --no-gradient-accumulation-fusion):
#     delayed wgrad must write into the static main_grad buffers the graph captured.
#   - no attention / QKV bias while attn is graphed with delayed wgrad.
#   - EP > 1, alltoall or flex dispatcher, bf16, no full recompute, no shared-expert overlap.
#
# Scopes: with --overlap-moe-expert-parallel-comm only attn / moe_router / moe_preprocess
# can be graphed; "moe" and "mlp" assert
# ("CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm").

python -c "import transformer_engine as te; print('TE', te.__version__)"

torchrun --nproc-per-node 8 --nnodes "${NNODES}" --node-rank "${NODE_RANK}" \
  --master-addr "${MASTER_ADDR}" --master-port "${MASTER_PORT}" \
  pretrain_gpt.py \
  ${MODEL_ARGS} \
  --bf16 \
  --expert-model-parallel-size 8 \
  --moe-token-dispatcher-type alltoall \
  --overlap-moe-expert-parallel-comm \
  --delay-wgrad-compute \
  --disable-bias-linear \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn moe_router moe_preprocess \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker

# If PP > 1, EP overlap also needs --num-layers-per-virtual-pipeline-stage (VPP).
# With --moe-router-padding-for-fp8 or a capacity factor on alltoall, drop moe_preprocess.
# Watch grad-norm: a NaN after ~80 iters was reported for attn graphs + EP overlap
# (Megatron-LM#5966); bisect by removing the graph flags.
