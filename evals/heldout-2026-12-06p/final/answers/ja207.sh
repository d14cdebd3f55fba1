#!/usr/bin/env bash
# What's missing: you're calling scripts/performance/run_script.py directly.
# The normal perf launcher goes through the performance executor, and its
# PerfEnvPlugin injects the allocator + CUDA-graph environment into the job.
# Calling run_script.py by hand skips that plugin, so the process runs with the
# default caching allocator. Full-iteration graphs + fp8 then fragment the pool
# right after the first (capture) iteration -> "lots of inactive reserved memory"
# followed by OOM at iteration 2.
#
# Reproduce what the plugin would have exported, before run_script.py:

# allocator: expandable segments, and let graph capture reuse record_stream'd blocks
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# expandable segments + NCCL graph user-buffer registration = illegal memory
# access risk. MCore asserts on this for TE graphs; for local graphs it was
# asserted on pre-Blackwell in 0.16-0.18. Set it on B300 too.
export NCCL_GRAPH_REGISTER=0

# record-stream behaviour that the graph-capture path expects
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLS off for graph capture
export NCCL_NVLS_ENABLE=0

python scripts/performance/run_script.py "$@"

# Check: after iteration 1, torch.cuda.memory_stats()["inactive_split_bytes.all.current"]
# should stay small instead of growing. Better long-term fix: launch through the
# perf executor (setup_experiment.py / the slurm or local executor path) so the
# plugin sets these for you and you don't drift from it.
