# mcore 0.17, whole-block decode graphs:
python examples/inference/gpt/gpt_dynamic_inference.py \
  --cuda-graph-impl local \
  --inference-cuda-graph-scope block \
  --inference-dynamic-batching-num-cuda-graphs 16 \
  --decode-only-cuda-graphs \
  --te-rng-tracker \
  ...   # model/ckpt args as before

# `layer` (default) = one graph per layer; `block` = the whole TransformerBlock in one graph.
# Check the log for "> built N cuda graph(s)" before comparing tok/s against eager.
