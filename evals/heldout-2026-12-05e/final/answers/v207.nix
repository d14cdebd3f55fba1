# flake.nix: dev shell for running Megatron Bridge's scripts/performance/run_script.py by hand
#
# Why you OOM after iteration 1: the performance launcher (setup_experiment.py → NeMo-Run
# executor + PerfEnvPlugin) normally injects the allocator / NCCL environment for you. Its base
# env sets expandable segments, NCCL_GRAPH_REGISTER=0 and NCCL_NVLS_ENABLE=0, and for a
# full-iteration CUDA graph config the plugin also appends
# graph_capture_record_stream_reuse:True and flips TORCH_NCCL_AVOID_RECORD_STREAMS to 0.
# Calling run_script.py directly (torchrun / srun python run_script.py ...) skips all of that,
# so the graph's private pool fragments the default allocator and the reserved-but-inactive
# memory you see piles up right after capture. Recreate that environment yourself:
#
#   nix develop        # then: torchrun --nproc-per-node 8 scripts/performance/run_script.py ...
{
  description = "env for direct run_script.py launches with full-iteration CUDA graphs";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      pkgs = import nixpkgs { system = "x86_64-linux"; };
    in {
      devShells.x86_64-linux.default = pkgs.mkShell {
        # mkShell exports every extra attribute as an environment variable
        PYTORCH_CUDA_ALLOC_CONF = "expandable_segments:True,graph_capture_record_stream_reuse:True";
        TORCH_NCCL_AVOID_RECORD_STREAMS = "0"; # graph_capture_record_stream_reuse needs record_stream
        NCCL_NVLS_ENABLE = "0";                # NVLink SHARP buffers cost memory
        NCCL_GRAPH_REGISTER = "0";             # always paired with expandable segments: NCCL graph
                                               # user-buffer registration + expandable segments can
                                               # cause illegal memory access (MCore asserts this for
                                               # the TE impl in every version, and asserted it for
                                               # local graphs on pre-Blackwell GPUs in 0.16-0.18)

        shellHook = ''
          echo "[perf env] PYTORCH_CUDA_ALLOC_CONF=$PYTORCH_CUDA_ALLOC_CONF"
          echo "[perf env] NCCL_GRAPH_REGISTER=$NCCL_GRAPH_REGISTER NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE TORCH_NCCL_AVOID_RECORD_STREAMS=$TORCH_NCCL_AVOID_RECORD_STREAMS"
        '';
      };
    };
}
# Cleaner alternative: launch through the performance launcher (setup_experiment.py with your
# Slurm/local executor) so PerfEnvPlugin sets these for every rank. With srun, make sure the
# variables are exported to all 8 ranks (srun --export=ALL), not just the login shell.
# Check: iteration 2+ reserved memory should stay flat after the "CUDA graph capture done" line.
