#!/usr/bin/env bash
# launch_qwen3_30b_a3b_fullgraph.sh
#
# Why you OOM after iteration 1 with lots of *inactive* reserved memory:
#   scripts/performance/run_script.py is normally started by the performance launcher
#   (setup_experiment.py -> executor + PerfEnvPlugin; in newer Bridge the per-recipe env_vars
#   applied by bootstrap.py). That layer is what injects the allocator / NCCL / CUDA-graph
#   environment. Calling run_script.py yourself skips it, so the full-iteration graph is
#   captured with the plain caching allocator: blocks freed during capture and still tied to
#   NCCL streams are parked instead of reused, and reserved-but-inactive memory piles up
#   until the next step can't allocate.
#
# These are the values NVIDIA's own Qwen3-30B-A3B B300 full-iteration recipe carries
# (Megatron-Bridge perf_recipes/qwen/b300/qwen3_moe.py) and what the v0.5 PerfEnvPlugin set for
# any full_iteration / local+full_iteration workload. They must be in the environment before
# the Python process starts: the allocator reads PYTORCH_CUDA_ALLOC_CONF at CUDA init.

set -euo pipefail

# Allocator: expandable segments against fragmentation, and let the allocator reuse blocks
# that were record_stream'ed during graph capture instead of keeping them reserved.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Full-iteration recipes flip this to 0 (the generic perf default is 1): keep NCCL's
# record_stream path, which the graph_capture_record_stream_reuse option above handles.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost memory; the perf recipes keep it off for this model.
export NCCL_NVLS_ENABLE=0

# Always pair with expandable segments: NCCL's graph buffer registration on remapped
# expandable-segment memory can cause illegal memory accesses. MCore asserts it for
# cuda_graph_impl=transformer_engine on every GPU; for local graphs 0.16-0.18 asserted it only
# on pre-Blackwell, so on B300 nothing stops you from forgetting it. Set it anyway.
export NCCL_GRAPH_REGISTER=0

# sm100+ (B200/B300): the launcher uses 32 connections so streams don't serialize.
export CUDA_DEVICE_MAX_CONNECTIONS=32

# Print what the workers will actually see, so the log shows it.
env | grep -E '^(PYTORCH_CUDA_ALLOC_CONF|TORCH_NCCL_AVOID_RECORD_STREAMS|NCCL_NVLS_ENABLE|NCCL_GRAPH_REGISTER|CUDA_DEVICE_MAX_CONNECTIONS)=' | sort

# Pass your usual run_script.py arguments through unchanged.
torchrun --nproc-per-node 8 scripts/performance/run_script.py "$@"

# After it runs: the log should show "Capture CUDA graph for training!!!" and
# "CUDA graph capture done for training!!!", and reserved memory should stop climbing after
# the capture step. If it still OOMs with this environment, the job has no memory headroom for
# a full-iteration graph; fall back to TE per-layer graphs (attn moe_router moe_preprocess).
