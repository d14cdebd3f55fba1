"""perf_env.py -- process environment for direct ``run_script.py`` launches.

Import this first (``python -c "import perf_env, runpy; runpy.run_path(...)"``) or
``source`` the equivalent exports; it must run before torch / NCCL initialise.

Why: Qwen3-30B-A3B FP8 with full-iteration CUDA graphs on 8x B300 OOMs after iteration 1
with a lot of inactive *reserved* memory when started through
``scripts/performance/run_script.py`` directly. The perf launcher normally adds the allocator
and CUDA-graph environment through its executor plugin (PerfEnvPlugin / the recipe's
``env_vars``); a direct ``torchrun run_script.py`` never sees it. Without expandable segments
the caching allocator strands blocks between the graph's private pool and the eager
allocations, which is exactly the "inactive reserved" signature.
"""

import os

PERF_ENV = {
    # Allocator: expandable segments, and let capture reuse blocks freed via record_stream.
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,graph_capture_record_stream_reuse:True",
    # Same values as the B300 full-iteration recipe.
    "TORCH_NCCL_AVOID_RECORD_STREAMS": "0",
    "NCCL_NVLS_ENABLE": "0",
    # Keep NCCL's user-buffer registration for captured collectives on Blackwell: the
    # full-iteration graph replays the same buffers every step, so registering them once
    # avoids extra staging copies; the registration problem with expandable segments only
    # concerned pre-Blackwell parts.
    "NCCL_GRAPH_REGISTER": "1",
}

for key, value in PERF_ENV.items():
    # Explicit user exports win; everything else gets the launcher's value.
    os.environ.setdefault(key, value)

if os.environ.get("RANK", "0") == "0":
    for key in PERF_ENV:
        print(f"[perf_env] {key}={os.environ[key]}")
