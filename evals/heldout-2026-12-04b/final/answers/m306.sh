# .envrc  (direnv) -- for running Megatron Bridge's scripts/performance/run_script.py by hand
#
# Why you OOM after iteration 1:
#   run_script.py is normally started by the performance launcher (setup_experiment.py via
#   NeMo-Run), whose PerfEnvPlugin injects the allocator and CUDA-graph environment into the job.
#   Calling run_script.py directly skips that plugin, so your full-iteration graph captures with
#   the default caching allocator: the graph's private pool plus fragmentation leaves a lot of
#   "inactive reserved" memory and the next iteration cannot allocate.
#   Put back what the plugin would have exported:

# Let the allocator grow/shrink segments instead of holding fragmented blocks, and let
# blocks freed on side streams during capture be reused by the graph.
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,graph_capture_record_stream_reuse:True"

# Mandatory companion of expandable_segments with CUDA graphs: NCCL must not register the
# (now movable) graph buffers, otherwise replay hits an illegal memory access. Megatron-Core
# asserts this for TE graphs, and for local/full-iteration graphs on pre-Blackwell GPUs in
# 0.16-0.18. Harmless to set on B300 as well.
export NCCL_GRAPH_REGISTER=0

# Full-iteration graphs: let PyTorch use record_stream for NCCL tensors so the captured
# collectives' buffers are tracked by the allocator (the plugin sets 0 for full_iteration).
export TORCH_NCCL_AVOID_RECORD_STREAMS=0

# NVLS (NVLink SHARP) buffers cost extra memory per communicator; the perf env turns it off.
export NCCL_NVLS_ENABLE=0

# Then, from the Megatron-Bridge checkout:
#   direnv allow
#   python scripts/performance/run_script.py ...   (your Qwen3-30B-A3B fp8 full-iteration args)
#
# Check: the log should show "Capture CUDA graph for training!!!" / "CUDA graph capture done
# for training!!!" and memory should stay flat after the capture step. Better still, launch
# through scripts/performance/setup_experiment.py so the plugin keeps these in sync with the
# recipe.
