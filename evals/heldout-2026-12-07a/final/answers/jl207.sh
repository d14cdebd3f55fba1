#!/usr/bin/env bash
# env for scripts/performance/run_script.py when you call it directly
# (Qwen3-30B-A3B, MXFP8, full-iteration CUDA graphs, 8x B300)
#
# Why you're missing it: the perf launcher, not run_script.py, owns the process
# environment. In Bridge v0.5.x setup_experiment.py's executor exports the perf
# defaults and PerfEnvPlugin adds the full-iteration allocator settings; in v0.6
# setup_experiment.py starts bootstrap.py, which applies the recipe's cfg.env_vars
# before torch is imported and then execs run_script.py. Calling run_script.py by
# hand skips all of that, so you run with the default caching allocator and
# NCCL defaults -> fragmentation after the first captured iteration, i.e. lots of
# "inactive reserved" memory and an OOM in iteration 2.

# Allocator: expandable segments against fragmentation, plus letting blocks freed
# with record_stream be reused during graph capture.
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True

# Must go with expandable segments: NCCL's graph buffer registration + remappable
# segments can cause illegal memory accesses. MCore asserts this pair for TE graphs
# (and for local graphs on pre-Blackwell in 0.16-0.18); the recipe sets it for
# full iteration on Blackwell too -- keep it.
export NCCL_GRAPH_REGISTER=0

# Full-iteration recipes set this to 0 together with the allocator option above
# (non-graph recipes use 1); don't copy the 1 from an older launch script.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP off: saves the NVLS buffer memory.
export NCCL_NVLS_ENABLE=0

# Rest of what the recipe sets for this workload (copy from its cfg.env_vars):
export CUDA_DEVICE_MAX_CONNECTIONS=32
export TORCH_NCCL_HIGH_PRIORITY=1

# Then launch as before, or better: go through setup_experiment.py so the recipe's
# env (HybridEP topology vars, layernorm SM margins, ...) is applied for you.
# Your PyTorch must know graph_capture_record_stream_reuse; use the matching container.
