#!/usr/bin/env bash
# Why you OOM after iter 1: scripts/performance/run_script.py is the *inner* entry point.
# When you go through the perf launcher (setup_experiment / NeMo-Run executor) the
# PerfEnvPlugin injects the allocator + CUDA-graph env for you. Calling run_script.py
# directly skips that plugin, so full-iteration graphs run on the default caching
# allocator -> fragmentation, lots of "inactive reserved" memory, OOM on iter 2.
# Export what the plugin would have set:

export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True
export NCCL_GRAPH_REGISTER=0          # always pair with expandable_segments (MCore asserts it for TE graphs; 0.16-0.18 also for local graphs pre-Blackwell)
export TORCH_NCCL_AVOID_RECORD_STREAMS=0
export NCCL_NVLS_ENABLE=0

torchrun --nproc-per-node 8 scripts/performance/run_script.py "$@"
# Check: reserved-but-inactive memory should stay flat after the capture iteration.
