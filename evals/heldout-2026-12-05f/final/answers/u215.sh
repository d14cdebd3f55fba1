#!/usr/bin/env bash
# Whole-block decode CUDA graphs for the MCore dynamic engine, chosen by megatron-core version.
#
# megatron-core 0.17: there is NO --inference-cuda-graph-scope / inference_cuda_graph_scope.
# Block-level inference capture is spelled with the 0.17 CudaGraphScope value
#   full_iteration_inference   (enum added in 0.17)
# together with --cuda-graph-impl local.
#   * Not "full_iteration": on 0.17 that is the training whole-step scope and builds no
#     inference graphs (the engine warns and tells you to use full_iteration_inference).
#   * 0.16 has no block-level inference graph; only per-layer local graphs.
#   * 0.18+: the same intent is --inference-cuda-graph-scope block.
# Python equivalent on 0.17:
#   TransformerConfig(..., cuda_graph_impl="local", cuda_graph_scope=["full_iteration_inference"])
# FP8 with full_iteration_inference on 0.17 also needs --transformer-impl inference_optimized
# and --fp8-recipe mxfp8.
set -euo pipefail

MCORE_VER=$(python -c "import megatron.core as m; print(m.__version__)")
MINOR=$(echo "$MCORE_VER" | cut -d. -f2)

COMMON=(--te-rng-tracker --decode-only-cuda-graphs)

case "$MINOR" in
  16)
    echo "megatron-core $MCORE_VER: no block-level decode graphs; using per-layer local graphs" >&2
    GRAPH_ARGS=(--cuda-graph-impl local --inference-dynamic-batching-num-cuda-graphs 16)
    ;;
  17)
    GRAPH_ARGS=(--cuda-graph-impl local --cuda-graph-scope full_iteration_inference
                --inference-dynamic-batching-num-cuda-graphs -1)
    ;;
  18|19)
    GRAPH_ARGS=(--cuda-graph-impl local --inference-cuda-graph-scope block
                --inference-dynamic-batching-num-cuda-graphs -1)
    ;;
  *)
    echo "unrecognised megatron-core $MCORE_VER" >&2; exit 1 ;;
esac

python examples/inference/gpt/gpt_dynamic_inference.py \
  "${GRAPH_ARGS[@]}" "${COMMON[@]}" "$@"

# Check the log for "> built cuda graph(s) in ..." -- no such line means decode ran eagerly.
