#!/usr/bin/env bash
# DeepSeek-style MoE + EP A2A overlap + delayed wgrad + TE CUDA graphs (Megatron-LM flags).
#
# Scopes
#   With --overlap-moe-expert-parallel-comm, TE graphs may capture only
#       attn, moe_router, moe_preprocess
#   'moe' and 'mlp' are rejected by TransformerConfig:
#       "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm"
#   That includes the dense first layers of a DeepSeek-style stack: no 'mlp' for them either.
#   Don't leave the module list empty either: that means whole-layer capture, which includes the MoE
#   part the overlap schedule runs eagerly. The config check doesn't catch that case, so keep the list explicit.
#
# Prerequisites for delay_wgrad_compute inside partial graphs
#   - TE >= 2.10: TransformerConfig asserts it for delay_wgrad_compute + transformer_engine graphs.
#   - TE >= 2.12 when the delayed wgrad lands in a graphed region (attn graphed, or moe_router with
#     non-overlapped shared experts). Megatron-LM 0.17+ asserts this. Use >= 2.12 and both checks pass.
#   - gradient_accumulation_fusion must stay ON. The graphed wgrad has to accumulate into the static
#     main_grad buffers; the unfused path doesn't use static addresses.
#     So do NOT pass --no-gradient-accumulation-fusion.
#   - No attention bias with 'attn' graphed: keep --disable-bias-linear and don't set --add-qkv-bias.
#   - TE RNG tracker on.
#
# Scope flag by era
#   megatron-core 0.18+ : --cuda-graph-modules attn moe_router moe_preprocess
#   megatron-core 0.16-0.17 : --cuda-graph-scope attn moe_router moe_preprocess
#   (Check first: python -c "import transformer_engine as te, megatron.core as m; print(te.__version__, m.__version__)")

CUDA_GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn moe_router moe_preprocess   # 0.18+; use --cuda-graph-scope on 0.16-0.17
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

MOE_OVERLAP_ARGS=(
  --expert-model-parallel-size 8                 # EP overlap needs EP > 1
  --moe-token-dispatcher-type alltoall           # alltoall or flex
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
  --bf16                                         # EP overlap: bf16/fp16 models only
  --disable-bias-linear                          # no attn bias with graphed delayed wgrad
  # gradient accumulation fusion is on by default. Leave it on.
  # no --recompute-granularity full with EP overlap
)

torchrun --nproc-per-node 8 pretrain_gpt.py \
  "${MOE_OVERLAP_ARGS[@]}" \
  "${CUDA_GRAPH_ARGS[@]}" \
  "$@"

# After it starts:
#  1. Check that every PP stage logs "Rank N: K graphable layers." with K > 0, plus the capture time.
#  2. Watch grad norm for the first ~100-200 iterations. A NaN after ~80 iterations was reported
#     with TE attn graphs + EP overlap (Megatron-LM#5966). If you see one, bisect: drop the
#     graph flags first, then --delay-wgrad-compute, same seed.
#  3. A/B steady-state step time against the same config with --cuda-graph-impl none.
