#!/bin/bash
# serve_gpt_decode_graphs.sh: MCore dynamic inference engine with CUDA-graphed decode
# megatron-core 0.19
#
# Answer in brief
#   * Inference CUDA graphs come only from the MCore "local" implementation:
#       cuda_graph_impl=local + inference_cuda_graph_scope=layer  (per-layer graphs, the default for local)
#       cuda_graph_impl=local + inference_cuda_graph_scope=block  (one graph per TransformerBlock: fewest launches)
#   * transformer_engine (and full_iteration) graphs do NOT serve inference. For those impls
#     inference_cuda_graph_scope must be "none", otherwise validation fails with
#     "Invalid inference CUDA graph scope 'block' for cuda_graph_impl='transformer_engine'."
#     and the TE layer replay asserts on inference_context anyway.
#   * A checkpoint trained with TE graphs is fine to serve. Just launch inference with --cuda-graph-impl local.
set -euo pipefail

CKPT=${CKPT:?path to checkpoint}
TOKENIZER=${TOKENIZER:?hf tokenizer id or path}
SCOPE=${SCOPE:-block}        # or: layer
# Architecture flags (--num-layers, --hidden-size, ...) as in examples/inference/run_offline_inference.sh
source "${MODEL_ARGS_FILE:?file that defines MODEL_ARGS=(...)}"

GRAPH_ARGS=(
  --cuda-graph-impl local
  --inference-cuda-graph-scope "${SCOPE}"
  --inference-rng-tracker                      # graph-safe RNG tracker for inference capture
  --inference-dynamic-batching-num-cuda-graphs 16   # batch-size buckets to capture (-1 = auto)
  --decode-only-cuda-graphs                    # graph decode steps; prefill stays eager
)

# MoE models only. Decode replay needs static expert shapes:
# MOE_ARGS=(--moe-pad-experts-for-cuda-graph-inference)   # or --transformer-impl inference_optimized
# FP8 + SCOPE=block additionally requires: --transformer-impl inference_optimized --fp8-recipe mxfp8
# Do NOT use --inference-batch-times-seqlen-threshold (PP-microbatched inference) with graphs.

torchrun --nproc-per-node "${NPROC:-8}" -m examples.inference.offline_inference \
  --load "${CKPT}" \
  --bf16 \
  --tensor-model-parallel-size "${TP:-1}" \
  --tokenizer-type HuggingFaceTokenizer \
  --tokenizer-model "${TOKENIZER}" \
  "${MODEL_ARGS[@]}" \
  "${GRAPH_ARGS[@]}" \
  "${MOE_ARGS[@]+"${MOE_ARGS[@]}"}"

# ---------------------------------------------------------------------------------------------
# Embedding the engine in your own server instead of the example script:
#   * Build the model config with cuda_graph_impl="local", inference_cuda_graph_scope="block" (or "layer").
#   * The engine captures graphs during its warmup inside torch.inference_mode(). Run your
#     step/generate loop under torch.inference_mode() too. Graphs captured in inference mode
#     must be replayed in inference mode, so don't mix in plain no_grad() here.
#   * EP > 1 (MoE): every EP rank must use the same graph buckets, and the EP communicator has to
#     exist before capture. If multinode MoE decode hangs in "cuda graph warmup", upgrade to a
#     build with those fixes before debugging further.
#
# Verify capture happened. The engine logs:
#   > built cuda graph(s) in <sec> sec. ...
# and decode step time should drop clearly against a run with --cuda-graph-impl none.
