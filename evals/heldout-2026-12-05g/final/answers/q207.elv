#!/usr/bin/env elvish
# qwen3-30b-a3b-fp8-fullgraph.elv
#
# Why you OOM after iteration 1 with lots of inactive-but-reserved memory:
# you call scripts/performance/run_script.py yourself, so the performance launcher's
# environment plugin (PerfEnvPlugin in setup_experiment's executor) never runs. That
# plugin exports the allocator and CUDA-graph environment the full-iteration presets are
# tuned for. Without expandable segments, the graph's private pool and the capture-time
# allocations fragment the caching allocator. That is the "inactive reserved" memory you
# see, and the next iteration can't find a contiguous block.
#
# Below is the same environment, set explicitly before torchrun.

# Allocator: expandable segments + let the allocator reuse blocks that were recorded on
# side streams during graph capture (needs a recent PyTorch).
set E:PYTORCH_CUDA_ALLOC_CONF = 'expandable_segments:True,graph_capture_record_stream_reuse:True'

# Mandatory companion of expandable segments for graphs: NCCL's graph-buffer registration
# on expandable segments can hit illegal memory accesses on replay. MCore asserts it for
# transformer_engine graphs (and for local graphs on pre-Blackwell GPUs in 0.16-0.18).
set E:NCCL_GRAPH_REGISTER = 0

# Don't let NCCL record tensors on its streams (avoids holding comm buffers alive
# across the graphed step; this is what the Bridge launch scripts export).
set E:TORCH_NCCL_AVOID_RECORD_STREAMS = 1

# NVLink SHARP buffers cost memory; the perf presets keep it off for this model.
set E:NCCL_NVLS_ENABLE = 0

var args = [
  --nproc-per-node 8
  scripts/performance/run_script.py
  -m qwen3 -mr qwen3_30b_a3b
  -g b300 -c fp8_mx
  --cuda_graph_impl local --cuda_graph_scope full_iteration
]

echo 'env:' $E:PYTORCH_CUDA_ALLOC_CONF 'NCCL_GRAPH_REGISTER='$E:NCCL_GRAPH_REGISTER
torchrun $@args

# Check after the run:
#  - "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!"
#  - reserved vs allocated stays flat after iteration 2 (no growing inactive split)
#  - the perf recipe already turns the loss/grad NaN checks off for full iteration
