"""Dagger pipeline: launch Megatron-Bridge's run_script.py directly with the perf env.

You are calling scripts/performance/run_script.py yourself, so the environment
that the performance launcher's executor + PerfEnvPlugin normally inject is
missing. For full-iteration CUDA graphs that is the allocator setup, hence the
post-iteration-1 OOM with lots of inactive reserved memory. This pipeline
restores it:

  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True
  TORCH_NCCL_AVOID_RECORD_STREAMS=1   # stop NCCL from caching comm buffers via record_stream
  NCCL_NVLS_ENABLE=0                  # no NVLink-SHARP buffers
  NCCL_GRAPH_REGISTER=0               # required with expandable_segments (MCore asserts for TE graphs)

Usage: dagger run python perf_launch.py -- <your run_script.py args>
"""

import sys

import anyio
import dagger

PERF_GRAPH_ENV = {
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,graph_capture_record_stream_reuse:True",
    "TORCH_NCCL_AVOID_RECORD_STREAMS": "1",
    "NCCL_NVLS_ENABLE": "0",
    "NCCL_GRAPH_REGISTER": "0",
}


async def main(run_script_args: list[str]) -> None:
    async with dagger.Connection(dagger.Config(log_output=sys.stderr)) as client:
        ctr = (
            client.container()
            .from_("nvcr.io/nvidia/nemo:latest")
            .with_workdir("/opt/Megatron-Bridge")
            .experimental_with_all_gpus()
        )
        for key, value in PERF_GRAPH_ENV.items():
            ctr = ctr.with_env_variable(key, value)
        out = await ctr.with_exec(
            ["torchrun", "--nproc-per-node", "8", "scripts/performance/run_script.py", *run_script_args]
        ).stdout()
        print(out)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
