# Megatron-LM inference with block-scoped decode CUDA graphs (megatron-core 0.18+).
python examples/inference/gpt/gpt_dynamic_inference.py \
  --num-layers 16 --hidden-size 2048 --num-attention-heads 32 --bf16 \
  --cuda-graph-impl local --inference-cuda-graph-scope block \
  --inference-dynamic-batching-num-cuda-graphs -1
