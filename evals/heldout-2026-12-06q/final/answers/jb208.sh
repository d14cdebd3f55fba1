#!/bin/bash
#SBATCH --job-name=qwen3-30b-a3b-fp8-fulliter
#SBATCH --nodes=1
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#SBATCH --time=01:00:00
#
# You're launching run_script.py directly, so none of the env that the perf
# launcher's PerfEnvPlugin normally injects is set. That's the OOM after iter 1
# (inactive reserved = allocator can't hand freed eager blocks to the graph pool).
# Re-create the plugin's env here.

set -euo pipefail

# --- allocator -------------------------------------------------------------
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"
export NCCL_GRAPH_REGISTER=0            # required whenever expandable_segments is on with graphs

# --- NCCL ------------------------------------------------------------------
export TORCH_NCCL_AVOID_RECORD_STREAMS=1   # perf default: don't cache NCCL comm buffers
export NCCL_NVLS_ENABLE=0                  # NVLS buffers eat HBM

# --- misc perf defaults ------------------------------------------------------
export TOKENIZERS_PARALLELISM=False
export TORCH_NCCL_HIGH_PRIORITY=1

srun --ntasks-per-node=8 --container-image="${IMAGE}" \
  python scripts/performance/run_script.py \
    "$@"   # your usual run_script.py args (model, gpu b300, fp8 recipe, full-iteration graphs)

# after the run: grep "CUDA graph capture done for training" and compare
# max reserved at iteration 2 vs 1.
