# megatron-core 0.17 — whole-block decode CUDA graphs for the dynamic engine
python examples/inference/gpt/gpt_dynamic_inference.py \
  $MODEL_ARGS --load $CKPT --bf16 \
  --cuda-graph-impl transformer_engine \
  --cuda-graph-scope full_iteration_inference \
  --inference-dynamic-batching-num-cuda-graphs -1 \
  --te-rng-tracker
# full_iteration_inference = whole block per decode step (0.17); 0.18+: --inference-cuda-graph-scope block
