#!/bin/bash
#SBATCH --job-name=qwen3-30b-a3b-fp8-fullgraph
#SBATCH --nodes=1
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#
# You're calling scripts/performance/run_script.py directly, so you skip the
# performance launcher (setup_experiment.py -> executor + PerfEnvPlugin).
# That launcher is what normally injects the allocator / NCCL env for CUDA-graph
# runs. Without it you get the default caching allocator, and after the
# full-iteration capture in iteration 1 the graph pool plus the fragmented
# blocks show up as "inactive reserved" memory, then OOM.
#
# Put back what the launcher would have set:

# Allocator: expandable segments kill the fragmentation. Also let the graph
# capture reuse blocks that were recorded on side streams.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Required companion of expandable segments: no NCCL user-buffer registration
# inside graphs (illegal memory access otherwise).
export NCCL_GRAPH_REGISTER=0

# NVLink SHARP buffers cost several GB per GPU. Off for memory.
export NCCL_NVLS_ENABLE=0

# Don't let ProcessGroupNCCL call record_stream on collective inputs. The
# caching allocator can then hand those blocks back right away instead of
# holding them until the NCCL stream catches up.
export TORCH_NCCL_AVOID_RECORD_STREAMS=1

# (the launcher also sets these; harmless to keep)
export TORCH_NCCL_HIGH_PRIORITY=1
export NVTE_NORM_FWD_USE_CUDNN=1
export NVTE_NORM_BWD_USE_CUDNN=1
export TOKENIZERS_PARALLELISM=False

srun --ntasks-per-node=8 --gpus-per-node=8 \
  python scripts/performance/run_script.py "$@"

# Check: iteration 2+ should show flat "reserved" memory in the memory log, and
# the inactive-split bytes should stop growing after the capture iteration.
