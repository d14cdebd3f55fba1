# ~/.config/fish/conf.d/mbridge_qwen3_30b_fullgraph.fish
#
# Why you OOM after iteration 1: calling scripts/performance/run_script.py directly skips the
# performance launcher. Its PerfEnvPlugin (setup_experiment.py path; recipe env_vars in newer
# Bridge) exports the allocator + CUDA-graph environment for full-iteration runs. Without it the
# caching allocator fragments around the graph's private pool -> lots of "inactive reserved"
# memory and an OOM right after capture. Put the same environment back yourself:

# allocator: expandable segments + let capture reuse record_stream'ed blocks
set -gx PYTORCH_CUDA_ALLOC_CONF "expandable_segments:True,graph_capture_record_stream_reuse:True"

# required together with expandable segments: NCCL must not register the (movable) graph
# buffers. MCore asserts this for TE graphs ("Setting NCCL_GRAPH_REGISTER=0 to avoid illegal
# memory access ..."), and did for local graphs on pre-Blackwell in 0.16-0.18.
set -gx NCCL_GRAPH_REGISTER 0

# the stream-reuse option relies on record_stream, so NCCL must not avoid it
set -gx TORCH_NCCL_AVOID_RECORD_STREAMS 0

# NVLS buffers eat memory on B300 and aren't needed here
set -gx NCCL_NVLS_ENABLE 0

# sanity check before launching
for v in PYTORCH_CUDA_ALLOC_CONF NCCL_GRAPH_REGISTER TORCH_NCCL_AVOID_RECORD_STREAMS NCCL_NVLS_ENABLE
    printf '%-34s %s\n' $v "$$v"
end

# then, same command as before, e.g.
#   torchrun --nproc-per-node 8 scripts/performance/run_script.py <your usual args>
#
# Better long-term: launch through the performance launcher (or copy the recipe's env_vars),
# so the env always matches the recipe. Confirm in the log:
#   "Capture CUDA graph for training!!!" -> "CUDA graph capture done for training!!!"
# and that torch.cuda.memory_stats() inactive_split bytes stay flat after the capture step.
