#!/usr/bin/env bash
# run_perf_direct.sh: launch scripts/performance/run_script.py directly (torchrun, no NeMo-Run)
# with the environment the perf launcher would normally inject.
#
# Why you OOM after iteration 1:
#   setup_experiment.py / the NeMo-Run executor is what sets the perf environment. Its
#   executor env (PERF_ENV_VARS) plus PerfEnvPlugin add the allocator and CUDA-graph
#   variables. Calling run_script.py yourself skips all of that, so the full-iteration
#   graph runs on the default caching allocator. Blocks freed by NCCL/side streams during
#   capture can't be reused by the graph pool ("inactive reserved" keeps growing), and the
#   second iteration runs out of memory.
#
# Usage:  bash run_perf_direct.sh <run_script.py args...>
#   e.g.  bash run_perf_direct.sh -m qwen --model_recipe_name qwen3_30b_a3b \
#           -g b300 -c fp8_mx --cuda_graph_impl local --cuda_graph_scope full_iteration
set -euo pipefail

# --- allocator: what PERF_ENV_VARS + PerfEnvPlugin set for full-iteration graphs ---------
# expandable segments so freed blocks can be remapped instead of fragmenting, and
# graph_capture_record_stream_reuse so blocks recorded on other streams during capture
# can be reused by the graph pool.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Mandatory companion of expandable_segments for CUDA graphs. NCCL's graph-time
# user-buffer registration + expandable segments -> illegal memory access.
# MCore asserts this for cuda_graph_impl=transformer_engine on every version, and for
# local graphs on pre-Blackwell GPUs in 0.16-0.18. B300 (sm_10x) skips that local check,
# but the hazard is still there, so set it anyway.
export NCCL_GRAPH_REGISTER=0

# PerfEnvPlugin flips this to 0 for full-iteration graphs (the executor default is 1),
# alongside graph_capture_record_stream_reuse above.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost memory; perf env disables them unless NCCL UB is on.
export NCCL_NVLS_ENABLE=0

# --- the rest of the perf env (not memory-related, but keeps numbers comparable) -------
export CUDA_DEVICE_MAX_CONNECTIONS=32    # sm100+ setting used by the perf plugin
export TORCH_NCCL_HIGH_PRIORITY=1
export NVTE_NORM_FWD_USE_CUDNN=1
export NVTE_NORM_BWD_USE_CUDNN=1
export TOKENIZERS_PARALLELISM=False

echo "[env] PYTORCH_CUDA_ALLOC_CONF=${PYTORCH_CUDA_ALLOC_CONF}"
echo "[env] NCCL_GRAPH_REGISTER=${NCCL_GRAPH_REGISTER} TORCH_NCCL_AVOID_RECORD_STREAMS=${TORCH_NCCL_AVOID_RECORD_STREAMS} NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE}"

# Full-iteration graphs also need the NaN checks off (the recipe/overrides normally do it).
# If you spell the graph config yourself:
#   megatron-core 0.16/0.17: model.cuda_graph_impl=local, model.cuda_graph_scope=[full_iteration]
#   megatron-core 0.18+   : model.cuda_graph_impl=full_iteration (cuda_graph_modules empty)
#   plus rerun_state_machine.check_for_nan_in_loss=False and ddp.check_for_nan_in_grad=False

exec torchrun --nproc_per_node=8 scripts/performance/run_script.py "$@"

# Check after the run: iteration 2+ should show a flat "reserved" memory line. If the OOM
# persists with this env, compare against the same recipe launched through
# setup_experiment.py (which applies the env for you) before changing the model config.
