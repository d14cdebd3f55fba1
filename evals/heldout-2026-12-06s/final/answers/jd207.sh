#!/usr/bin/env bash
# You're missing the launcher environment.
#
# scripts/performance/setup_experiment.py launches run_script.py through an executor plus
# PerfEnvPlugin. Those inject the allocator / NCCL environment the perf recipes were
# tuned with, including the extra CUDA-graph settings when the workload uses full-iteration
# graphs. Calling run_script.py directly (torchrun/srun on it yourself) skips all of that.
# You get PyTorch's default allocator, and after the first captured iteration the
# graph's private pool plus record_stream'ed NCCL buffers pile up as inactive reserved
# blocks. That's the pattern you're seeing.
#
# Export the same thing the launcher would, then start run_script.py as before.

# Allocator: expandable segments, and let graph capture reuse blocks that were
# record_stream'ed instead of holding them until the next sync.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Required whenever expandable segments are on with CUDA graphs. NCCL's graph user-buffer
# registration on expandable-segment memory can cause illegal memory accesses. MCore
# asserts it for transformer_engine graphs; the launcher sets it for every GPU, B300
# included. Don't drop it because you're on Blackwell.
export NCCL_GRAPH_REGISTER=0

# With full-iteration graphs the plugin flips this to 0 (the executor default is 1), so
# NCCL tensors go through the allocator's record_stream path that the option above makes
# graph-safe.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost memory; the perf environment turns them off.
export NCCL_NVLS_ENABLE=0

# The launcher also sets things like CUDA_DEVICE_MAX_CONNECTIONS and NVTE_* flags per
# model/GPU. To see exactly what your version sets for Qwen3-30B-A3B fp8 on B300, run the
# launcher once with --dryrun and compare its env against yours.

exec torchrun --nproc-per-node 8 scripts/performance/run_script.py "$@"

# Notes
# - graph_capture_record_stream_reuse needs a recent PyTorch (the NeMo/Bridge container has
#   it). If your torch rejects the key, you are on an older stack than the recipe assumes.
# - Recent Bridge moved this environment into the perf recipe itself (cfg.env_vars in
#   megatron.bridge.perf_recipes.*). If you build the config yourself, carry env_vars over
#   too.
# - Still OOM with this env? Then it's real graph memory: compare peak memory to
#   cuda_graph_impl="none" at the same batch shape.
