#!/usr/bin/env python3
"""Run scripts/performance/run_script.py directly, with the env the perf launcher would inject.

Root cause of "OOM after iteration 1, lots of inactive reserved memory":
the performance launcher (setup_experiment.py -> executor + PerfEnvPlugin) sets allocator and
NCCL variables for CUDA-graph runs. Calling run_script.py yourself bypasses all of it. So the
full-iteration graph captured in iteration 1 runs on the default caching allocator, and the
blocks left over from capture stay reserved but unusable.

What the launcher provides (Megatron-Bridge scripts/performance, v0.5.x layout):
  * executor defaults: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, NCCL_GRAPH_REGISTER=0,
    NCCL_NVLS_ENABLE=0, TORCH_NCCL_AVOID_RECORD_STREAMS=1
  * PerfEnvPlugin, for full-iteration graphs only: appends graph_capture_record_stream_reuse:True
    to PYTORCH_CUDA_ALLOC_CONF and overrides TORCH_NCCL_AVOID_RECORD_STREAMS to 0

Usage (inside your allocation, one process per GPU as usual):
  python launch_with_perf_env.py -- <the exact run_script.py args you use today>
"""
import os
import sys

FULL_ITERATION_GRAPH_ENV = {
    # expandable segments stop the fragmentation; record-stream reuse lets capture reuse
    # blocks recorded on side streams instead of pinning them
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,graph_capture_record_stream_reuse:True",
    # mandatory companion of expandable segments with CUDA graphs: no NCCL graph
    # user-buffer registration (illegal memory access risk). MCore asserts it for TE graphs.
    "NCCL_GRAPH_REGISTER": "0",
    # full-iteration graphs need record_stream semantics for NCCL tensors (the plugin forces 0)
    "TORCH_NCCL_AVOID_RECORD_STREAMS": "0",
    # NVLS (NVLink SHARP) buffers cost GBs per GPU
    "NCCL_NVLS_ENABLE": "0",
}


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--":
        args = args[1:]

    env = dict(os.environ)
    for key, value in FULL_ITERATION_GRAPH_ENV.items():
        if key == "PYTORCH_CUDA_ALLOC_CONF" and env.get(key):
            # keep the user's other allocator options, but ours win for the keys we set
            ours = value.split(",")
            our_names = {opt.split(":")[0] for opt in ours}
            kept = [o for o in env[key].split(",") if o and o.split(":")[0] not in our_names]
            env[key] = ",".join(kept + ours)
        else:
            env[key] = value

    if env.get("RANK", "0") == "0":
        for key in FULL_ITERATION_GRAPH_ENV:
            print(f"[perf-env] {key}={env[key]}", flush=True)

    cmd = [sys.executable, "scripts/performance/run_script.py", *args]
    os.execvpe(cmd[0], cmd, env)


if __name__ == "__main__":
    main()

# After relaunch: iteration 1 logs the full-iteration capture; from iteration 2 on, reserved memory
# should stay flat. The [perf-env] lines on rank 0 show the final values that were actually exported.
