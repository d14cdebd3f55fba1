#!/usr/bin/env python3
"""launch_qwen3_30b_fp8_fi.py — run scripts/performance/run_script.py directly, with the
environment the performance launcher would have injected.

Why you OOM after iteration 1:
  The normal entry point (setup_experiment / the perf executor) attaches PerfEnvPlugin and
  the executor's default env. Calling run_script.py directly skips both, so the allocator
  runs without expandable segments and without graph-capture stream reuse. With
  full-iteration graphs the freed-but-reserved blocks can't be reused (the "inactive
  reserved" memory you see) and you hit OOM right after capture.

What the launcher sets for full-iteration graphs (Bridge perf_plugins.py / executors.py):
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True
  TORCH_NCCL_AVOID_RECORD_STREAMS=0   (flipped from the default 1 for full-iteration graphs)
  NCCL_NVLS_ENABLE=0                  (NVLink SHARP buffers cost memory)
  NCCL_GRAPH_REGISTER=0               (mandatory with expandable segments: MCore asserts it
                                       for TE graphs, and 0.16-0.18 also asserted it for the
                                       local impl on pre-Blackwell GPUs; on B300 it still
                                       avoids NCCL graph user-buffer registration IMA)
Must be set before the interpreter that initialises CUDA/NCCL starts, hence this shim.
"""
import os
import sys

GRAPH_ENV = {
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,graph_capture_record_stream_reuse:True",
    "TORCH_NCCL_AVOID_RECORD_STREAMS": "0",
    "NCCL_NVLS_ENABLE": "0",
    "NCCL_GRAPH_REGISTER": "0",
}

env = dict(os.environ)
env.update(GRAPH_ENV)
for k, v in GRAPH_ENV.items():
    print(f"[launch] {k}={v}", file=sys.stderr)

cmd = [
    "torchrun", "--nproc-per-node", "8",
    "scripts/performance/run_script.py",
    "--model_family_name", "qwen",
    "--model_recipe_name", "qwen3_30b_a3b",
    "--gpu", "b300",
    "--compute_dtype", "fp8_mx",
    "--cuda_graph_impl", "local",
    "--cuda_graph_scope", "full_iteration",
    *sys.argv[1:],
]
os.execvpe(cmd[0], cmd, env)

# Check: the first lines of the job log should echo the four variables above, and
# torch.cuda.memory_stats()["inactive_split_bytes.all.current"] should stay flat after iter 1.
# Better still, launch through the perf launcher (setup_experiment.py) so PerfEnvPlugin applies.
