#!/usr/bin/env bash
# Cause: scripts/performance/run_script.py on its own is only the training
# entry point. The allocator / CUDA-graph environment is injected by the
# performance launcher (setup_experiment.py -> executor env + PerfEnvPlugin),
# not by run_script.py. Calling it directly skips all of that, so the
# full-iteration graph run starts with the default caching allocator: the
# graph pool's blocks can't be reused across record_stream'ed NCCL buffers,
# memory piles up as "inactive reserved", and iteration 2 OOMs.
#
# Source this file and call qwen3_30b_perf instead of run_script.py.

qwen3_30b_perf() {
  # what PerfEnvPlugin sets for full-iteration graphs, plus the executor defaults
  export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"
  export TORCH_NCCL_AVOID_RECORD_STREAMS=0   # the plugin flips this to 0 for full-iteration graphs
  export NCCL_NVLS_ENABLE=0                  # NVLink SHARP buffers cost memory
  # expandable segments + NCCL graph buffer registration = illegal memory access
  # risk; TE-graph paths assert on it, so always pair the two.
  export NCCL_GRAPH_REGISTER=0

  echo "[qwen3_30b_perf] PYTORCH_CUDA_ALLOC_CONF=$PYTORCH_CUDA_ALLOC_CONF" >&2
  echo "[qwen3_30b_perf] TORCH_NCCL_AVOID_RECORD_STREAMS=$TORCH_NCCL_AVOID_RECORD_STREAMS NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE NCCL_GRAPH_REGISTER=$NCCL_GRAPH_REGISTER" >&2

  torchrun --nproc-per-node 8 scripts/performance/run_script.py \
    -m qwen3 -mr qwen3_30b_a3b -g b300 -c fp8_mx \
    "$@"
}

# After the fix, iteration 2+ should hold steady reserved memory. Check
# "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!"
# in the log and compare steady-state steps only:
#   skill-tools logs run.log --json
# Simplest alternative: launch through the performance launcher (setup_experiment.py)
# so PerfEnvPlugin sets these for you.
