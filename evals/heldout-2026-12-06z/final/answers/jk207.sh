#!/usr/bin/env bash
# You're not missing a flag, you're missing the launcher's environment.
#
# When you go through the performance launcher (setup_experiment.py -> NeMo-Run executor),
# PerfEnvPlugin + the executor's default env inject the allocator / NCCL settings that
# full-iteration graphs rely on. Calling scripts/performance/run_script.py directly (torchrun,
# srun, your own sbatch) skips all of that, so you run with the stock caching allocator:
# graph private pools + record_stream'd NCCL buffers pile up as "inactive reserved" blocks
# and iteration 2 OOMs.
#
# Export these yourself before launching:

# Allocator: expandable segments, and let graph capture reuse blocks freed on side streams.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Full-iteration graphs: keep NCCL's record_stream path ON (the plugin sets 0 for full-iteration runs,
# the generic perf default of 1 is for non-graphed runs).
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost a lot of memory; the perf executor turns them off.
export NCCL_NVLS_ENABLE=0

# Mandatory next to expandable segments: NCCL user-buffer registration inside graphs +
# expandable segments can cause illegal memory accesses. MCore asserts this for TE graphs, and
# for local graphs on pre-Blackwell in 0.16-0.18; set it everywhere, B300 included.
export NCCL_GRAPH_REGISTER=0

# (the rest of what the plugin normally sets; not memory-critical but keeps you comparable)
export TORCH_NCCL_HIGH_PRIORITY=1
export NVTE_NORM_FWD_USE_CUDNN=1
export NVTE_NORM_BWD_USE_CUDNN=1

torchrun --nproc-per-node 8 scripts/performance/run_script.py "$@"

# After the run: check `torch.cuda.memory_summary()` / the memory log line at iteration 2-3 —
# inactive-split reserved memory should be small now. If you can, prefer launching through the
# performance launcher instead, so the env stays in sync with what the recipe was tuned with.
