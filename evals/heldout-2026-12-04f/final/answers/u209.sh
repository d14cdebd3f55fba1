#!/usr/bin/env bash
# run_qwen3_30b_a3b_fp8_fullit.sh
#
# Why you OOM after iteration 1: scripts/performance/run_script.py is normally started by the
# performance launcher (setup_experiment.py), which injects the process environment for the
# recipe — PerfEnvPlugin in older Bridge, the recipe's own env_vars applied by bootstrap.py in newer
# Bridge. Calling run_script.py by hand skips all of it, so the caching allocator runs without
# expandable segments; after the full-iteration capture the graph's private pool pins memory
# and the next steps fragment the rest ("inactive" reserved blocks) until the OOM.
#
# This wrapper sets what the launcher would have set for Qwen3-30B-A3B MXFP8 full-iteration on
# 8x B300, then calls run_script.py with your usual arguments:
#   ./run_qwen3_30b_a3b_fp8_fullit.sh <your run_script.py args>
set -euo pipefail

# Allocator: expandable segments let the allocator give back/remap fragmented segments;
# graph_capture_record_stream_reuse lets blocks freed during capture be reused across streams.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Required together with expandable segments under CUDA graphs: NCCL graph buffer registration
# plus remapped (expandable) memory can give illegal memory accesses. MCore asserts this for
# cuda_graph_impl=transformer_engine ("Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory
# access ..."), and for local/full-iteration graphs on pre-Blackwell GPUs in 0.16-0.18. Set it
# unconditionally.
export NCCL_GRAPH_REGISTER=0

# Full-iteration graphs: keep NCCL's recordStream behaviour so buffers used inside the captured
# collectives are tracked by the allocator (the launcher sets 0 for full-iteration recipes).
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLS (NVLink SHARP) buffers cost extra memory per communicator; the recipe turns them off.
export NCCL_NVLS_ENABLE=0

echo "[env] PYTORCH_CUDA_ALLOC_CONF=$PYTORCH_CUDA_ALLOC_CONF NCCL_GRAPH_REGISTER=$NCCL_GRAPH_REGISTER" \
     "TORCH_NCCL_AVOID_RECORD_STREAMS=$TORCH_NCCL_AVOID_RECORD_STREAMS NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"

exec python scripts/performance/run_script.py "$@"

# Notes
# - Better long-term: launch through scripts/performance/setup_experiment.py (or
#   scripts/training/train.sh --recipe ...) so the recipe's whole environment, including the
#   HybridEP/NVTE knobs, comes with it; this wrapper only covers the allocator/graph part.
# - If it still OOMs with this env, the graphs do not fit: fewer micro-batches in flight or
#   TE-scoped graphs (attn moe_router moe_preprocess) instead of full iteration. Graphs are a
#   speed feature, not a way to fit a run.
