#!/usr/bin/env bash
# DeepSeek-style MoE: EP all-to-all overlap + delayed wgrad + TE partial CUDA graphs
# (Megatron-LM, megatron-core 0.19; on 0.16/0.17 use --cuda-graph-scope instead of --cuda-graph-modules)

GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  # EP A2A overlap only allows attn / moe_router / moe_preprocess.
  # 'moe' and 'mlp' are rejected (this includes the dense first-k layers' MLP).
  --cuda-graph-modules attn moe_router moe_preprocess
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

OVERLAP_ARGS=(
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
  --overlap-grad-reduce
  # Delayed wgrad runs the weight-gradient GEMMs after the backward graph replays. With fused
  # gradient accumulation those GEMMs write straight into main_grad from inside the captured
  # backward, and the buffer aliases across replays. Use the unfused path (TE >= 2.7 supports
  # delay_wgrad_compute without the fusion).
  --no-gradient-accumulation-fusion
)

# Prerequisites:
#  * TE >= 2.12 when attn (or moe_router with non-overlapped shared experts) is captured together
#    with delayed wgrad.
#  * No attention bias: keep --disable-bias-linear and no --add-qkv-bias.
#  * PP > 1 with EP overlap needs --num-layers-per-virtual-pipeline-stage (VPP).
#  * Dispatcher: alltoall or flex. With alltoall, don't combine moe_preprocess with
#    --moe-expert-capacity-factor or --moe-router-padding-for-fp8 (host sync in preprocess).

torchrun --nproc-per-node 8 pretrain_gpt.py \
  "${MODEL_ARGS[@]}" "${MOE_ARGS[@]}" "${PARALLEL_ARGS[@]}" \
  "${OVERLAP_ARGS[@]}" "${GRAPH_ARGS[@]}" \
  "${DATA_ARGS[@]}" "${TRAIN_ARGS[@]}"

# After it runs: confirm "Rank N: K graphable layers." (K > 0) and the capture-time line, then
# A/B against the same launch without GRAPH_ARGS on steady-state steps. Watch grad norm: a NaN
# around iteration 80-90 was reported with TE attn graphs + EP overlap (Megatron-LM#5966).
