#!/usr/bin/env bash
# You're missing the environment that the perf launcher normally injects.
#
# scripts/performance/setup_experiment.py does not just call run_script.py: it builds a
# NeMo-Run executor whose env vars come from the perf executor defaults plus PerfEnvPlugin.
# PerfEnvPlugin adds the allocator and CUDA-graph settings for full-iteration graphs. When you
# call run_script.py directly (torchrun/srun), none of that is set. The result is what you see:
# the graph pool plus NCCL buffers pinned by record_stream keep segments "inactive but
# reserved" after the first (capture) iteration, and iteration 2 OOMs.
#
# What the launcher sets for a full-iteration-graph workload (Bridge perf scripts:
# executor defaults + PerfEnvPlugin's full_iteration branch):

# allocator: expandable segments + let graph capture reuse memory of record_stream'd blocks
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"
# full-iteration graphs: the plugin flips this to 0 (the generic perf default is 1)
export TORCH_NCCL_AVOID_RECORD_STREAMS=0
# NVLink SHARP off to save memory (the perf executor default)
export NCCL_NVLS_ENABLE=0
# required whenever expandable_segments is on next to CUDA graphs: NCCL's graph
# user-buffer registration + remapped segments -> illegal memory access.
# MCore asserts it for TE graphs; for local graphs it was asserted on pre-Blackwell GPUs
# in 0.16-0.18. Set it on B300 too.
export NCCL_GRAPH_REGISTER=0

# a couple of other launcher defaults, so your numbers compare with the perf configs
export TORCH_NCCL_HIGH_PRIORITY=1
export CUDA_DEVICE_MAX_CONNECTIONS=32   # what the plugin picks on sm100+ (B200/B300)

# then your usual direct launch, e.g.
torchrun --nproc-per-node 8 scripts/performance/run_script.py "$@"

# Simpler alternative: launch through setup_experiment.py (Slurm / local executor), which
# applies PerfEnvPlugin for you. Either way, the workload needs the NaN checks off for a
# full-iteration graph (the perf configs already do that).
#
# Check: after this, iteration 2+ should hold flat reserved memory. If it still grows, print
# torch.cuda.memory_summary() after iteration 1 and compare the "inactive split" rows.
