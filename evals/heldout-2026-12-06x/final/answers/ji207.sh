#!/usr/bin/env bash
# You're missing the environment the perf launcher normally injects.
#
# scripts/performance/setup_experiment.py (the NeMo-Run executor path) doesn't just call
# run_script.py: the executor carries the perf env vars, and PerfEnvPlugin adds the
# CUDA-graph-specific ones for full-iteration workloads. Calling
# scripts/performance/run_script.py directly (torchrun / srun) skips all of that, so the
# caching allocator runs without expandable segments and without graph-capture stream reuse.
# A full-iteration graph pins its memory pool, and the blocks freed around capture stay
# reserved but inactive. That's the "lots of inactive reserved memory" -> OOM after
# iteration 1 you're seeing.
#
# Export these before run_script.py (same values the executor/plugin set):

# Allocator: expandable segments, and let graph capture reuse record_stream'd blocks
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Must go with expandable segments: NCCL graph user-buffer registration on expandable-segment
# memory can hit illegal memory accesses (MCore asserts this pairing for TE graphs; it was also
# asserted for local graphs on pre-Blackwell GPUs in 0.16-0.18). Set it on B300 too.
export NCCL_GRAPH_REGISTER=0

# For full-iteration graphs the plugin flips this to 0 (the generic perf default is 1)
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost memory; the perf env disables them
export NCCL_NVLS_ENABLE=0

# Then launch as before, e.g.
# torchrun --nproc-per-node 8 scripts/performance/run_script.py <your same args>

# Check:
#  - "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!" in the log
#  - torch.cuda.memory_summary() (or the perf logger) after iteration 2: inactive/reserved
#    should drop sharply
#  - if the OOM persists with the env fixed, it's a real headroom problem (full-iteration graphs
#    keep the whole fwd/bwd activations resident); reduce MBS or go back to TE-scoped graphs.
#
# Easiest way to avoid this class of bug: launch through the perf launcher
# (setup_experiment.py with a local/slurm executor) instead of calling run_script.py by hand,
# or diff `env` between the two launches.
