#!/usr/bin/env bash
# You're calling scripts/performance/run_script.py directly, so none of the env that the
# performance launcher (setup_experiment.py -> executor + PerfEnvPlugin) normally injects
# is set. For a full-iteration CUDA graph run that env is what keeps the allocator sane:
# without it the graph pool and NCCL's record_stream bookkeeping leave large blocks
# "inactive but reserved" after the capture in iteration 1 -> OOM on the next step.
#
# Put this in front of your run_script.py call (every rank must see it, so export it in
# the sbatch/srun wrapper, not just your login shell).

# allocator: expandable segments + let graph capture reuse blocks freed on other streams
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# full-iteration graphs: PerfEnvPlugin flips this to 0 for full_iteration workloads
# (the generic perf default is 1). record_stream-based lifetime is what graph_capture_record_stream_reuse builds on.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# don't let NCCL register user buffers inside captured graphs; mandatory next to
# expandable segments (MCore's TE graph helper asserts it; for local graphs it was
# asserted on pre-Blackwell GPUs in 0.16-0.18, so on B300 nothing stops you from forgetting it)
export NCCL_GRAPH_REGISTER=0

# NVLink SHARP buffers cost a lot of HBM; perf defaults turn it off
export NCCL_NVLS_ENABLE=0

# the rest of the perf defaults, for parity with launcher-submitted runs
export TORCH_NCCL_HIGH_PRIORITY=1
export NVTE_NORM_FWD_USE_CUDNN=1
export NVTE_NORM_BWD_USE_CUDNN=1
export TOKENIZERS_PARALLELISM=False

python scripts/performance/run_script.py "$@"

# Checks:
#  - rank 0 log: "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!"
#  - torch.cuda.memory_summary() after iter 2: "inactive_split" should be small now
#  - easier long-term: launch through the performance launcher (setup_experiment.py) so the
#    plugin sets all of this, including the model-specific bits, for you.
#  - Exact values can differ between Bridge versions; compare with what PerfEnvPlugin / the
#    perf recipe sets in your checkout before you copy this.
