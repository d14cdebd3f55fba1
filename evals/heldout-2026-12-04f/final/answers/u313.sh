#!/usr/bin/env bash
# serve_decode_graphs.sh -- MCore dynamic inference engine with decode CUDA graphs (megatron-core 0.19)
set -euo pipefail

CKPT=${CKPT:?set CKPT to your GPT checkpoint dir}
TOKENIZER=${TOKENIZER:?set TOKENIZER}

cat <<'NOTE'
== decode CUDA graphs, megatron-core 0.19 ==
* Graphs for decode come from MCore's own CudaGraphManager: --cuda-graph-impl local.
* --inference-cuda-graph-scope block  = one graph per batch bucket around the whole decoder
  (fewest launches, least memory); 'layer' = one graph per layer per bucket.
* The Python InferenceConfig.num_cuda_graphs defaults to None (no graphs!); this flag sets -1 = auto.
* --decode-only-cuda-graphs keeps prefill eager (mixed prefill graphs multiply the graph count).
* Capture and replay both run under torch.inference_mode inside the engine.
* MoE with EP>1: add --moe-pad-experts-for-cuda-graph-inference so expert shapes are static.
* transformer_engine graphs: also fine for decode. Switch --cuda-graph-impl transformer_engine
  and use --inference-cuda-graph-scope layer; TE's make_graphed_callables gives per-layer graphs
  with fused kernels and is worth trying on larger models.
NOTE

python examples/inference/gpt/gpt_dynamic_inference.py \
  --load "$CKPT" \
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model "$TOKENIZER" \
  --bf16 \
  --cuda-graph-impl local \
  --inference-cuda-graph-scope block \
  --inference-dynamic-batching-num-cuda-graphs -1 \
  --decode-only-cuda-graphs \
  --te-rng-tracker \
  "$@"
