#!/bin/bash
# DeepSeek-style MoE: EP A2A overlap + delayed wgrad + TE CUDA graphs (megatron-core 0.19)
#
# Scope rules with --overlap-moe-expert-parallel-comm:
#   only attn / moe_router / moe_preprocess can be graphed; "moe" and "mlp" assert,
#   and an empty module list (whole layer) would pull the MoE in as well.
#
# Prereqs for delayed wgrad inside the graphed attn/router:
#   * TE >= 2.12 (earlier TE mis-handles the deferred wgrad hook under capture)
#   * gradient accumulation fusion OFF: the fused path has TE write wgrad straight into
#     main_grad from inside the kernel, and with delay_wgrad_compute that write is
#     deferred outside the captured region, so the graph replays against a stale
#     main_grad pointer. The unfused path accumulates in a separate step MCore controls.
#   * no attention bias (add_bias_linear / add_qkv_bias off)

MOE_ARGS=(
  --num-experts 64
  --moe-router-topk 6
  --moe-shared-expert-intermediate-size 2816
  --moe-token-dispatcher-type alltoall
  --moe-grouped-gemm
  --expert-model-parallel-size 8
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
)

GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn moe_router moe_preprocess
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

PREREQ_ARGS=(
  --no-gradient-accumulation-fusion
  --disable-bias-linear
  --bf16
)

torchrun --nproc-per-node 8 pretrain_gpt.py \
  "${MOE_ARGS[@]}" "${GRAPH_ARGS[@]}" "${PREREQ_ARGS[@]}" "$@"

# After launch:
#  - every PP stage should log "Rank N: K graphable layers." with K > 0
#  - A/B grad norm vs. the same command without GRAPH_ARGS; there's a known report of
#    NaN grad norm after ~80 iters with TE attn graphs + EP overlap (Megatron-LM#5966)
