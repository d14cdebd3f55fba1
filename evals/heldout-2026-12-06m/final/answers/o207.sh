#!/usr/bin/env bash
# run_qwen3_30b_a3b_fp8_fullgraph.sh
#
# Why you OOM after iteration 1 with lots of inactive reserved memory:
# you call scripts/performance/run_script.py directly, which skips the perf
# launcher (setup_experiment.py -> executor + PerfEnvPlugin). The launcher
# injects the allocator / NCCL environment that full-iteration CUDA graphs rely on.
# Without it, the graph pool and the eager allocator fragment each other, and
# NCCL's record_stream keeps blocks alive across capture. That shows up as
# a large "inactive split" / reserved-but-unallocated number right after the first
# graphed step.
#
# This wrapper re-creates what the plugin sets for a full-iteration graph run.

set -euo pipefail

# Allocator: expandable segments + let graph capture reuse record_stream'd blocks
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Full-iteration graphs: the plugin flips this to 0 (the generic perf default is 1)
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost memory; the perf env disables them
export NCCL_NVLS_ENABLE=0

# Required companion of expandable_segments with CUDA graphs: NCCL graph
# user-buffer registration + expandable segments -> illegal memory access.
# MCore asserts on it for TE graphs (and for local graphs on pre-Blackwell in
# 0.16-0.18); set it unconditionally.
export NCCL_GRAPH_REGISTER=0

# (the perf launcher also sets TORCH_NCCL_HIGH_PRIORITY=1, NVTE_NORM_*_USE_CUDNN=1,
#  CUDA_DEVICE_MAX_CONNECTIONS per model; keep whatever your recipe expects)
export TORCH_NCCL_HIGH_PRIORITY=1

# Exception: if you enable NCCL user buffers (nccl_ub) the plugin *removes*
# PYTORCH_CUDA_ALLOC_CONF and NCCL_GRAPH_REGISTER; don't combine the two.

exec torchrun --nproc-per-node 8 scripts/performance/run_script.py "$@"

# Better long-term: launch through scripts/performance/setup_experiment.py so the
# executor applies PerfEnvPlugin for you, and check the env block in the job log.
