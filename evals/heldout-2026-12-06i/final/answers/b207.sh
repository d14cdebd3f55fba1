#!/usr/bin/env bash
# run_qwen3_30b_a3b_fp8_b300.sh
#
# Wrapper for calling Megatron Bridge's scripts/performance/run_script.py
# *directly* (torchrun / srun) instead of through setup_experiment.py.
#
# Why you OOM after iteration 1 with lots of inactive-but-reserved memory:
# the normal perf launcher goes through the NeMo-Run executor, and its
# PerfEnvPlugin injects the allocator / NCCL environment that full-iteration
# CUDA graphs rely on. run_script.py on its own sets none of that, so the
# caching allocator fragments around the graph pool, and NCCL's record-stream
# bookkeeping keeps freed comm buffers alive until the next sync. That is the
# "reserved but inactive" pile you see in torch.cuda.memory_summary().
#
# This preamble reproduces what the executor + PerfEnvPlugin would export for
# a full-iteration graph run (Bridge v0.5.x scripts/performance).

set -euo pipefail

# --- allocator: expandable segments + let graph capture reuse record_stream'd blocks
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# --- NCCL with CUDA graphs
export NCCL_GRAPH_REGISTER=0              # required alongside expandable_segments (IMA otherwise)
export TORCH_NCCL_AVOID_RECORD_STREAMS=1  # don't let NCCL record_stream() pin buffers inside the graph pool
export NCCL_NVLS_ENABLE=0                 # NVLS buffers cost several GB per rank

# --- the usual perf-launcher extras
export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-32}
export TORCH_NCCL_HIGH_PRIORITY=1
export NVTE_NORM_FWD_USE_CUDNN=1
export NVTE_NORM_BWD_USE_CUDNN=1
export TOKENIZERS_PARALLELISM=False

echo "[env] PYTORCH_CUDA_ALLOC_CONF=$PYTORCH_CUDA_ALLOC_CONF"
echo "[env] NCCL_GRAPH_REGISTER=$NCCL_GRAPH_REGISTER TORCH_NCCL_AVOID_RECORD_STREAMS=$TORCH_NCCL_AVOID_RECORD_STREAMS NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"

exec torchrun --nproc-per-node 8 scripts/performance/run_script.py \
  --model_family_name qwen \
  --model_recipe_name qwen3_30b_a3b \
  --gpu b300 \
  --num_gpus 8 \
  --compute_dtype fp8_mx \
  "$@"

# Sanity checks once it's running:
#  * iteration 2+ memory should plateau; if "inactive split" keeps growing,
#    echo the env from inside rank 0 (os.environ) to make sure srun propagated it
#  * compare post-capture iterations against eager, never the capture step
