#!/usr/bin/env bash
# Qwen3-30B-A3B fp8, full-iteration CUDA graphs, 8x B300, launched via
# scripts/performance/run_script.py *directly* (no NeMo-Run executor).
#
# Root cause of "OOM after iteration 1 with lots of inactive reserved memory":
# the performance launcher (setup_experiment / the executor's PerfEnvPlugin) normally
# injects the allocator + CUDA-graph env. Calling run_script.py yourself
# skips that, so the caching allocator runs with defaults and the graph
# pools fragment it after the first captured iteration.
# Recreate that env here before torchrun:

# allocator: grow segments in place, let graph capture reuse record_stream'd blocks
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True

# mandatory companion of expandable segments with CUDA graphs: NCCL user-buffer
# registration of graph-captured buffers + expandable segments -> illegal memory
# access. MCore asserts this for the TE impl (and for local on pre-Blackwell in 0.16-0.18).
export NCCL_GRAPH_REGISTER=0

# let NCCL use record_stream semantics the graph pools expect
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLS reserves extra memory and doesn't mix with graph-captured collectives here
export NCCL_NVLS_ENABLE=0

torchrun --nproc-per-node 8 scripts/performance/run_script.py \
  "$@"

# Sanity check after the first steps: "reserved - allocated" should stay flat
# across iterations 1..5. If it still climbs, compare your env against what
# the launcher would set (run it once with the normal executor and dump `env`).
