# DeepSeek-style MoE: EP all-to-all overlap + delayed wgrad + TE CUDA graphs
# megatron-core 0.18/0.19 spelling (on 0.16/0.17 use --cuda-graph-scope with the same values)
#
# Prerequisites (checked at startup):
#   * Transformer Engine >= 2.12 when a graphed scope contains wgrad (attn, or moe_router with
#     non-overlapped shared experts). TransformerConfig on its own only checks >= 2.10, but
#     Megatron-LM and Bridge require 2.12 for this path: pip show transformer_engine first.
#   * gradient accumulation fusion ON (the default) - delayed wgrad must accumulate into the
#     static main_grad buffers; the unfused path allocates new tensors, which a graph can't replay.
#   * no attention bias: add_bias_linear / add_qkv_bias must be False with attn graphed.
#   * TE RNG tracker.
# Megatron-LM's arguments.py asserts the TE version / fusion / bias checks when overlap_grad_reduce
# is on; Bridge's CommOverlapConfig asserts them whenever delayed wgrad meets a graphed attn scope.

MOE_ARGS=(
  --expert-model-parallel-size 8
  --moe-token-dispatcher-type alltoall      # or flex; EP overlap needs one of the two
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
  --bf16                                    # EP overlap is bf16/fp16 only
)

CUDA_GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  # With EP overlap only these three may be graphed. "moe" and "mlp" are rejected:
  #   'CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm'
  --cuda-graph-modules attn moe_router moe_preprocess
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)

# NOT: --no-gradient-accumulation-fusion, --add-bias-linear, --add-qkv-bias

python pretrain_gpt.py "${MODEL_ARGS[@]}" "${MOE_ARGS[@]}" "${CUDA_GRAPH_ARGS[@]}" ...

# Notes
# - moe_preprocess also can't be captured with the alltoall dispatcher if you use a capacity
#   factor without padding or moe_router_padding_for_fp8 (host sync in preprocess) - drop it then.
# - No recompute of "moe" / full recompute with EP overlap (separate EP-overlap constraint).
# - Watch grad norm for the first few hundred steps: a NaN after ~80 iterations has been reported
#   with TE attn graphs + EP overlap (Megatron-LM #5966). If you see it, bisect by removing the
#   graph flags first (eager + overlap), then delay_wgrad.
# - Confirm "Rank N: K graphable layers." with K > 0 on every PP stage, then A/B steady-state step
#   time and loss against the same config with --cuda-graph-impl none.
