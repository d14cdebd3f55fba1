# ~/.zfunc/mcore_decode_block  -- autoloaded: `autoload -Uz mcore_decode_block`
#
# Whole-block decode CUDA graphs with the MCore dynamic inference engine on megatron-core 0.17.
#
# 0.17 has no --inference-cuda-graph-scope (that arrives in 0.18). On 0.17 the block-level graph is
# asked for through the scope list with the local manager:
#     --cuda-graph-impl local --cuda-graph-scope full_iteration_inference
# (the CudaGraphScope value added in 0.17: one graph per batch bucket around the whole
# TransformerBlock). Do NOT use --cuda-graph-scope full_iteration here: on 0.17 the engine only warns
# "'full_iteration' CUDA graph scope used during inference! This will not create inference CUDA graphs."
# An empty scope gives per-layer graphs instead; 0.16 has only those.
# After upgrading to 0.18+, the same intent is --cuda-graph-impl local --inference-cuda-graph-scope block.
#
# usage: mcore_decode_block <ckpt-dir> <tokenizer-model> [extra args...]

emulate -L zsh
setopt err_return no_unset

if (( $# < 2 )); then
  print -u2 "usage: $0 <ckpt-dir> <tokenizer-model> [extra args...]"
  return 2
fi

local ckpt=$1 tok=$2
shift 2

local mcore_ver
mcore_ver=$(python -c 'import megatron.core as m; print(m.__version__)') || return 1
if [[ $mcore_ver != 0.17.* ]]; then
  print -u2 "$0: megatron-core $mcore_ver; this spelling is for 0.17 only"
  return 1
fi

local -a graph_args=(
  --cuda-graph-impl local
  --cuda-graph-scope full_iteration_inference
  --inference-dynamic-batching-num-cuda-graphs -1   # -1 = automatic bucket count (0.17+)
  --decode-only-cuda-graphs                         # prefill shapes vary; don't graph them
  --te-rng-tracker
)
# FP8 + full_iteration_inference needs --transformer-impl inference_optimized and --fp8-recipe mxfp8 (arguments.py checks both).

CUDA_DEVICE_MAX_CONNECTIONS=1 \
torchrun --nproc-per-node ${TP:-1} examples/inference/gpt/gpt_dynamic_inference.py \
  --load $ckpt \
  --tokenizer-type HuggingFaceTokenizer --tokenizer-model $tok \
  --tensor-model-parallel-size ${TP:-1} \
  --bf16 \
  $graph_args \
  "$@"

# Check the log for "> built cuda graph(s) in ... sec" -- no such line means decode stayed eager.
