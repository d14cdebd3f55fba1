# salt state: perf-env/megatron_fullgraph.sls
#
# Context: Qwen3-30B-A3B fp8, full-iteration CUDA graphs, 8x B300, OOM after iteration 1 with
# lots of inactive reserved memory.
#
# Diagnosis: you call scripts/performance/run_script.py directly, which bypasses Megatron
# Bridge's performance launcher. Its executor + PerfEnvPlugin normally export the allocator and
# NCCL environment, so a direct launch runs with the default caching allocator and the
# full-iteration graph pool fragments it after capture. This state puts the same environment
# on every training node (sourced by login shells and by the srun prolog wrapper).
#
# Apply:  salt 'gpu-b300-*' state.apply perf-env.megatron_fullgraph

megatron_fullgraph_env:
  file.managed:
    - name: /etc/profile.d/megatron_fullgraph.sh
    - mode: '0644'
    - contents: |
        # managed by salt: perf-env.megatron_fullgraph
        # allocator: expandable segments + reuse of record_stream'ed blocks during capture
        export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,graph_capture_record_stream_reuse:True
        # mandatory partner of expandable segments (NCCL graph registration -> IMA otherwise)
        export NCCL_GRAPH_REGISTER=0
        # NVLink SHARP buffers cost memory; the perf launcher disables them
        export NCCL_NVLS_ENABLE=0
        # the perf launcher's default: don't let NCCL hold record_stream references,
        # frees communication buffers sooner
        export TORCH_NCCL_AVOID_RECORD_STREAMS=1

megatron_fullgraph_env_check:
  cmd.run:
    - name: bash -lc 'env | grep -E "PYTORCH_CUDA_ALLOC_CONF|NCCL_GRAPH_REGISTER|NCCL_NVLS_ENABLE|TORCH_NCCL_AVOID_RECORD_STREAMS"'
    - require:
      - file: megatron_fullgraph_env

# Then relaunch run_script.py unchanged (srun --export=ALL ...). Memory after the
# "CUDA graph capture done for training!!!" line should stay flat from iteration 2 on.
