# DeepSeek-style MoE: EP A2A overlap + delayed wgrad + TE CUDA graphs (megatron-core 0.19)
# Prereqs: TE >= 2.12 (MLM asserts it for graphs+delay_wgrad when overlap_grad_reduce is on;
#          TransformerConfig alone asks >= 2.10), EP>1, alltoall/flex dispatcher, bf16.
# Scope: with --overlap-moe-expert-parallel-comm only attn / moe_router / moe_preprocess may be
#        graphed ("CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm").
# wgrad is written by the delayed pass into main_grad -> needs gradient accumulation fusion
# (static main_grad addresses); do NOT pass --no-gradient-accumulation-fusion.
# Graphed attn + delayed wgrad: no attention bias -> --disable-bias-linear, no --add-qkv-bias.
MOE_GRAPH_ARGS=(
  --expert-model-parallel-size 8
  --moe-token-dispatcher-type alltoall
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
  --overlap-grad-reduce
  --disable-bias-linear
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn moe_router moe_preprocess
  --te-rng-tracker
  --bf16
)
# Watch grad norm for the first few hundred steps: Megatron-LM#5966 reports NaN grad norm
# after ~80 iters with TE attn graphs + EP overlap. If you see it, drop the graph flags
# (then attn alone) to bisect.
