#!/usr/bin/env bash
# Qwen3-30B-A3B, fp8 (MXFP8), full-iteration CUDA graphs, 8x B300, launching run_script.py directly.
#
# Why you OOM after iteration 1:
#   setup_experiment.py doesn't just call run_script.py. It goes through the NeMo-Run executor,
#   which carries the perf env defaults (utils/executors.py PERF_ENV_VARS), and PerfEnvPlugin adds
#   the CUDA-graph-specific allocator settings for full-iteration workloads
#   (perf_plugins.py: graph_capture_record_stream_reuse + TORCH_NCCL_AVOID_RECORD_STREAMS=0).
#   Calling run_script.py yourself skips both, so the caching allocator runs with its defaults:
#   blocks freed on NCCL side streams during capture can't be reused, and the full-iteration
#   graph's pool fragments. That's the "inactive reserved" memory growing until OOM.
#
# Source this block (or put it in your sbatch) before the launch:

set -euo pipefail

# Allocator: expandable segments + let capture reuse blocks that were record_stream'ed
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# With full-iteration graphs the plugin flips this to 0 (the executor default is 1), so NCCL
# uses record_stream and the allocator option above can recycle those blocks inside capture.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost memory; the perf harness disables them by default
export NCCL_NVLS_ENABLE=0

# Always together with expandable segments: NCCL's graph user-buffer registration on remapped
# (expandable) memory can cause illegal memory accesses. MCore asserts this pairing for
# transformer_engine graphs on every GPU; the local-impl check was pre-Blackwell only (0.16-0.18)
# and is gone in 0.19, so nothing may force it on B300 with full-iteration graphs. The harness
# sets it anyway: keep it.
export NCCL_GRAPH_REGISTER=0

# Not memory-related, but the harness sets them too (keeps runs comparable)
export TORCH_NCCL_HIGH_PRIORITY=1
export CUDA_DEVICE_MAX_CONNECTIONS=32   # PerfEnvPlugin's value on sm100+ (B200/B300)

for v in PYTORCH_CUDA_ALLOC_CONF TORCH_NCCL_AVOID_RECORD_STREAMS NCCL_NVLS_ENABLE NCCL_GRAPH_REGISTER; do
  echo "${v}=${!v}"
done

# The B300 fp8_mx workload config for this model already selects full-iteration graphs
# (cuda_graph_impl="full_iteration"), so no --cuda_graph_* flags are needed here.
torchrun --nproc-per-node 8 scripts/performance/run_script.py \
  -m qwen -mr qwen3_30b_a3b --task pretrain \
  -g b300 -c fp8_mx -ng 8 "$@"

# Check after the run:
#   - capture logged once after the warm-up iterations, then no growth of reserved memory
#     from iteration 2 on (log memory per iteration for a few steps)
#   - PerfEnvPlugin also sets/removes a few model-specific NVTE_* vars; if you compare against
#     an official number, print the env of a setup_experiment.py launch and diff it with this one.
