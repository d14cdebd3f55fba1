#!/usr/bin/env bash
# Env for calling scripts/performance/run_script.py directly (no NeMo-Run executor).
#
# When you launch through the perf harness (setup_experiment.py -> executor +
# PerfEnvPlugin), the executor exports the allocator/NCCL defaults and the plugin
# adds the CUDA-graph extras. Calling run_script.py yourself skips both, so a
# full-iteration run comes up on the stock caching allocator. Blocks freed around
# the captured iteration then stay reserved but unusable, which is the
# "lots of inactive reserved memory" OOM right after the capture step.
#
# Source this before torchrun/srun. Values follow Bridge's perf executor
# (utils/executors.py PERF_ENV_VARS) and PerfEnvPlugin's full-iteration branch
# (perf_plugins.py) in the v0.5 layout; newer Bridge keeps them in the recipe's
# env_vars.

# --- allocator: the part that fixes your OOM --------------------------------
# expandable segments let the allocator grow/reuse segments instead of
# fragmenting. graph_capture_record_stream_reuse lets blocks that were
# record_stream'ed during capture be reused. The plugin appends it for
# full-iteration graphs. Your PyTorch must know this key (the NeMo/Bridge
# container's does); an older build will complain about it at startup.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Always pair with expandable segments. NCCL's graph user-buffer registration
# plus remappable segments -> illegal memory access. MCore asserts this for TE
# graphs on every GPU. For the local/full-iteration path it was asserted only
# pre-Blackwell (0.16-0.18), but the harness sets it regardless, so do the same
# on B300.
export NCCL_GRAPH_REGISTER=0

# Full-iteration graphs: the plugin flips this from the executor default (1) to 0,
# so NCCL tensors go through record_stream and the reuse option above applies.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLink SHARP buffers cost memory; the executor turns them off by default.
export NCCL_NVLS_ENABLE=0

# --- the rest of the executor defaults (not memory-related, but keep runs comparable)
export TORCH_NCCL_HIGH_PRIORITY=1
export TOKENIZERS_PARALLELISM=False
# Blackwell (sm100+): the plugin raises device connections to 32
export CUDA_DEVICE_MAX_CONNECTIONS=32

# Full iteration also needs the NaN checks off in the config itself
# (rerun_state_machine.check_for_nan_in_loss=False, ddp.check_for_nan_in_grad=False);
# check your overrides if you changed the recipe.
#
# Sanity checks after the change:
#   - "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!" in the log
#   - reserved - allocated stays flat after iteration 2 (torch.cuda.memory_summary on rank 0)
#
# Simplest alternative: launch via scripts/performance/setup_experiment.py with the
# same model/gpu/precision arguments and let the executor set all of this for you.
