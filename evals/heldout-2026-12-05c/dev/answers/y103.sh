#!/usr/bin/env bash
# decode_bench.sh -- dynamic-engine decode with whole-block CUDA graphs, megatron-core 0.17
#
# usage: decode_bench.sh -c CKPT -t TOKENIZER [-n NUM_GRAPHS] [-b] [-f]
#   -n  number of decode graph buckets (-1 = automatic, default)
#   -b  block-level graphs (one graph per batch bucket around the whole TransformerBlock)
#   -f  fp8 (block-level graphs then need inference_optimized + mxfp8)
#
# 0.17 has no --inference-cuda-graph-scope (that's 0.18+). Block-level inference capture is
# the full_iteration_inference value of the graph module list with the local impl; plain
# "full_iteration" is the training graph and builds nothing for the dynamic engine.

set -euo pipefail

CKPT="" TOKENIZER="" NUM_GRAPHS=-1 BLOCK=0 FP8=0
while getopts ":c:t:n:bfh" opt; do
  case "$opt" in
    c) CKPT="$OPTARG" ;;
    t) TOKENIZER="$OPTARG" ;;
    n) NUM_GRAPHS="$OPTARG" ;;
    b) BLOCK=1 ;;
    f) FP8=1 ;;
    h) sed -n '2,10p' "$0"; exit 0 ;;
    \?) echo "unknown option -$OPTARG" >&2; exit 2 ;;
    :)  echo "-$OPTARG needs a value" >&2; exit 2 ;;
  esac
done
[[ -n "$CKPT" && -n "$TOKENIZER" ]] || { echo "need -c and -t" >&2; exit 2; }

GRAPH_ARGS=(
  --cuda-graph-impl local
  --inference-dynamic-batching-num-cuda-graphs "$NUM_GRAPHS"
  --decode-only-cuda-graphs            # prefill/mixed steps stay eager
  --te-rng-tracker
)
if (( BLOCK )); then
  GRAPH_ARGS+=(--cuda-graph-modules full_iteration_inference)
fi
if (( FP8 )); then
  GRAPH_ARGS+=(--fp8-format e4m3 --fp8-recipe mxfp8 --transformer-impl inference_optimized)
fi

torchrun --nproc-per-node "${GPUS:-1}" examples/inference/gpt/gpt_dynamic_inference.py \
  --load "$CKPT" \
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model "$TOKENIZER" \
  --bf16 \
  "${GRAPH_ARGS[@]}" \
  --num-tokens-to-generate 256 \
  --prompts "The capital of France is"

# expect "> built cuda graph(s) in ... sec" in the log before the first request
