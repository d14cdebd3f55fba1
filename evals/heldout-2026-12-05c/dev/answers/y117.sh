#!/usr/bin/env bash
# Qwen3-30B-A3B FP8 (MXFP8), full-iteration CUDA graphs, 8x B300 -- direct run_script.py launch.
#
# Why you OOM after iteration 1 with lots of inactive reserved memory:
# the perf launcher (setup_experiment.py -> NeMo-Run executor) normally injects the
# allocator/CUDA-graph environment through its PerfEnvPlugin / the recipe's env_vars.
# Calling scripts/performance/run_script.py yourself skips that, so the caching
# allocator runs without expandable segments and the graph pool + eager blocks fragment.
# These are the variables the launcher would have set for this recipe:
#
#   PYTORCH_CUDA_ALLOC_CONF          expandable_segments + reuse of record_stream blocks during capture
#   NCCL_GRAPH_REGISTER=0            REQUIRED whenever expandable_segments is on with CUDA graphs:
#                                    NCCL's graph buffer registration + remapped segments -> illegal
#                                    memory access (MCore asserts it for TE graphs, and for local graphs
#                                    on pre-Blackwell in 0.16-0.18)
#   TORCH_NCCL_AVOID_RECORD_STREAMS=0
#   NCCL_NVLS_ENABLE=0

set -euo pipefail

docker run --rm --gpus all --ipc=host --network=host \
  --ulimit memlock=-1 --ulimit stack=67108864 \
  -e PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True \
  -e NCCL_GRAPH_REGISTER=0 \
  -e TORCH_NCCL_AVOID_RECORD_STREAMS=0 \
  -e NCCL_NVLS_ENABLE=0 \
  -v "$PWD":/src -w /src/Megatron-Bridge \
  "${IMAGE:?set IMAGE to your NeMo container}" \
  torchrun --nproc-per-node 8 scripts/performance/run_script.py "$@"
  #        ^ pass the same run_script.py arguments you use today

# Sanity check inside the container before a long run:
#   python -c 'import os; [print(k, os.environ.get(k)) for k in ("PYTORCH_CUDA_ALLOC_CONF","NCCL_GRAPH_REGISTER","TORCH_NCCL_AVOID_RECORD_STREAMS","NCCL_NVLS_ENABLE")]'
# In the log: "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!",
# then reserved memory should stay flat from iteration 2 on.
