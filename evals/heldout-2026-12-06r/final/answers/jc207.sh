#!/usr/bin/env bash
# run_qwen3_30b_a3b_fp8_direct.sh
#
# Why you OOM after iteration 1 with lots of "inactive reserved" memory:
#   scripts/performance/run_script.py is normally launched *through* the performance
#   executor, whose PerfEnvPlugin injects the allocator + CUDA-graph environment.
#   Calling run_script.py directly skips that plugin, so full-iteration graphs run on the
#   default caching allocator -> graph pools + fragmented blocks pile up as reserved-but-
#   inactive memory and iteration 2 OOMs.
#
# Fix: export what the plugin would have exported, then launch as before.

# allocator: expandable segments + let graph capture reuse record_stream'd blocks
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# must go together with expandable_segments: NCCL's graph buffer registration on
# expandable segments can cause illegal memory accesses. MCore asserts this for
# cuda_graph_impl=transformer_engine (all versions) and asserted it for local graphs on
# pre-Blackwell GPUs in 0.16-0.18. Set it regardless of arch/impl.
export NCCL_GRAPH_REGISTER=0

# the rest of what PerfEnvPlugin sets for graphed runs
export TORCH_NCCL_AVOID_RECORD_STREAMS=0
export NCCL_NVLS_ENABLE=0

torchrun --nproc-per-node=8 scripts/performance/run_script.py "$@"

# Better long-term: launch through the performance executor (setup_experiment.py) so the
# plugin keeps these in sync with the recipe instead of copying them by hand.
