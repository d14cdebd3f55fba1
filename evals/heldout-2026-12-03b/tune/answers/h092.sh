#!/bin/bash
# EP A2A overlap + delayed wgrad + TE partial CUDA graphs (Megatron-LM, megatron-core 0.19)
python -c "import transformer_engine as te; v=te.__version__; print(v); assert tuple(map(int, v.split('.')[:2])) >= (2, 12), 'need TE >= 2.12'"

MOE_ARGS=(
  --num-experts 64 --expert-model-parallel-size 8
  --moe-token-dispatcher-type alltoall
  --overlap-moe-expert-parallel-comm
  --delay-wgrad-compute
  --disable-bias-linear
)
GRAPH_ARGS=(
  --cuda-graph-impl transformer_engine
  --cuda-graph-modules attn moe_router moe_preprocess   # moe/mlp are rejected with EP overlap
  --cuda-graph-warmup-steps 3
  --te-rng-tracker
)
# gradient accumulation fusion stays at its default (on): do NOT pass --no-gradient-accumulation-fusion,
# the delayed wgrad must write into static main_grad buffers for graphs.
torchrun --nproc-per-node 8 pretrain_gpt.py "${MOE_ARGS[@]}" "${GRAPH_ARGS[@]}" $OTHER_ARGS
