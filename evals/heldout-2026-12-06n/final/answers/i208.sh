#!/usr/bin/env bash
# qwen3_30b_a3b_fp8_b300.sh
# run_script.py called directly = no PerfEnvPlugin, so none of the perf env the
# launcher normally injects is set. That's why full-iteration graphs fragment the
# caching allocator (inactive reserved memory piles up) and OOM after iteration 1.

set -euo pipefail

# --- allocator (what PerfEnvPlugin sets for graph runs) ---
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0               # required together with expandable segments

# --- NCCL / record-stream behaviour under capture ---
export TORCH_NCCL_AVOID_RECORD_STREAMS=0
export NCCL_NVLS_ENABLE=0

# --- lets the allocator reuse blocks freed by side streams during capture ---
export PYTORCH_CUDA_ALLOC_CONF=graph_capture_record_stream_reuse:True

torchrun --nproc-per-node 8 scripts/performance/run_script.py \
  --model_family_name qwen --model_recipe_name qwen3_30b_a3b \
  --gpu b300 --compute_dtype fp8_mx "$@"
