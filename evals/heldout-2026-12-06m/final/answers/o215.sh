#!/bin/bash
# Whole-block decode CUDA graphs on megatron-core 0.17 (dynamic engine)
#
# 0.17 has no --inference-cuda-graph-scope (added in 0.18). On 0.17 the scope enum
# CudaGraphScope is shared between training and inference, and the whole-block path
# in TransformerBlock is selected through the local impl + the full_iteration scope.
# Only the local CudaGraphManager can own a block-level graph; TE graphs are
# per-layer and training-only.

INFERENCE_GRAPH_ARGS=(
    --cuda-graph-impl local
    --cuda-graph-scope full_iteration          # 0.17: whole block per step (decode)
    --inference-dynamic-batching-num-cuda-graphs 16
    --te-rng-tracker
)

# full_iteration scope trips the training NaN-check assert in validate_args, even for
# an inference-only entry point, so turn the check off:
INFERENCE_GRAPH_ARGS+=( --no-check-for-nan-in-loss-and-grad )

# Do NOT pass --inference-cuda-graph-scope on 0.17: the flag doesn't exist and
# argparse aborts with "unrecognized arguments".

torchrun --nproc-per-node 8 examples/inference/gpt/gpt_dynamic_inference.py \
    "${MODEL_ARGS[@]}" \
    "${INFERENCE_GRAPH_ARGS[@]}" \
    --inference-dynamic-batching \
    --prompt-file prompts.jsonl

# Check the log for the capture line from the dynamic engine; if the engine prints no
# graph build, decode ran eagerly. When you move to 0.18+, the same intent is
# --cuda-graph-impl local --inference-cuda-graph-scope block.
