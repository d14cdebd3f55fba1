#!/usr/bin/env bash
# perf_env_full_iteration.sh
# Source this BEFORE calling scripts/performance/run_script.py directly:
#
#   source perf_env_full_iteration.sh
#   torchrun --nproc-per-node 8 scripts/performance/run_script.py <your usual args>
#
# Why you OOM after iteration 1 with lots of inactive/reserved memory:
# the perf launcher is what injects the allocator + CUDA-graph environment into the job. In
# Bridge 0.5.x that's the executor's PERF_ENV_VARS plus PerfEnvPlugin; in newer Bridge it's the
# recipe's cfg.env_vars, which the launcher applies. run_script.py on its own doesn't set the
# allocator/graph variables, so a direct launch runs full-iteration graphs on the default caching
# allocator.
# PYTORCH_CUDA_ALLOC_CONF is only read when the CUDA allocator initialises, so it must be in the
# environment before Python starts. Setting it inside the script is too late.

# 1) Allocator. expandable_segments stops the fragmentation that shows up as inactive/reserved
#    memory. graph_capture_record_stream_reuse lets the allocator reuse blocks that were
#    record_stream'ed during graph capture; the full-iteration recipes add it. It needs a PyTorch
#    that knows the option (the NeMo/Bridge containers do; an older torch rejects unknown keys).
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True

# 2) Required companion of expandable segments under CUDA graphs. NCCL's graph user-buffer
#    registration combined with expandable segments can cause illegal memory accesses.
#    MCore asserts NCCL_GRAPH_REGISTER=0 for transformer_engine graphs on every version, and
#    asserted it for local graphs on pre-Blackwell GPUs in 0.16-0.18. The B300 recipe sets it for
#    full iteration as well, so always ship the two together.
export NCCL_GRAPH_REGISTER=0

# 3) Full-iteration recipes flip this to 0 (the generic perf default is 1), paired with
#    graph_capture_record_stream_reuse above.
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# 4) NVLink SHARP reserves extra buffer memory; the perf recipes turn it off.
export NCCL_NVLS_ENABLE=0

# The Qwen3-30B-A3B 8xB300 MXFP8 full-iteration recipe sets more than the memory-related
# variables above (CUDA_DEVICE_MAX_CONNECTIONS=32, the HybridEP topology vars, the TE
# SM-margin vars, NCCL_IGNORE_CPU_AFFINITY=1). Copy them from the recipe's env_vars to
# reproduce its throughput. Or launch through the perf launcher (setup_experiment.py) and let it
# set all of this for you.

# Quick check that rank 0 actually sees it:
python - <<'PY'
import os
for k in ("PYTORCH_CUDA_ALLOC_CONF", "NCCL_GRAPH_REGISTER",
          "TORCH_NCCL_AVOID_RECORD_STREAMS", "NCCL_NVLS_ENABLE"):
    print(f"{k}={os.environ.get(k)}")
PY
