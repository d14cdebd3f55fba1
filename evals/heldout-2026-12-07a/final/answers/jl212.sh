#!/bin/bash
# DeepSeek-style MoE with EP A2A overlap + delayed wgrad + TE CUDA graphs
# Megatron-LM, megatron-core 0.19, TE >= 2.12
#
# Scope: with --overlap-moe-expert-parallel-comm the TE impl may not graph `moe` or `mlp`
# (TransformerConfig asserts), so graph attention + router + preprocess and leave
# dispatch/experts eager.
#
# delay_wgrad + graphed attn/router prerequisites:
#   - TE >= 2.12 (asserted in arguments.py when --overlap-grad-reduce is on)
#   - no attention bias (--disable-bias-linear, no qkv bias)
#   - gradient accumulation fusion OFF: with delayed wgrad the weight grads are produced in
#     a separate deferred pass, and the fused accumulate-into-main_grad kernel would write
#     them during the captured backward instead; turning it off keeps the graph clean.
#   - TE RNG tracker

torchrun --nproc-per-node 8 pretrain_gpt.py \
  --transformer-impl transformer_engine \
  --expert-model-parallel-size 8 \
  --moe-token-dispatcher-type alltoall \
  --overlap-moe-expert-parallel-comm \
  --delay-wgrad-compute \
  --overlap-grad-reduce \
  --use-distributed-optimizer \
  --no-gradient-accumulation-fusion \
  --disable-bias-linear \
  --bf16 \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-modules attn moe_router moe_preprocess \
  --cuda-graph-warmup-steps 3 \
  --te-rng-tracker \
  "$@"

# Verify: "Rank N: K graphable layers" > 0 on each stage, capture time logged,
# steady-state A/B vs eager, and watch grad norm (NaN reports with attn graphs + EP overlap,
# Megatron-LM#5966 -- drop attn from the modules if it diverges).
