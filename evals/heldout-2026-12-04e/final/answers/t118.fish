# ~/.config/fish/conf.d/megatron-cuda-graphs.fish
#
# Q: expandable_segments:True + TE-scoped CUDA graphs dies with
#    "Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory access when using CUDA Graph
#     with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."
#    Should I drop expandable segments?
#
# A: No. That message is an assert that tells you the missing companion setting. Keep
#    expandable segments and also export NCCL_GRAPH_REGISTER=0.
#
# Why: during capture NCCL registers the graph's communication buffers (user-buffer
# registration). Expandable segments map and remap allocator memory under those
# registrations, and a replay can then touch memory that moved, which is an illegal memory
# access. NCCL_GRAPH_REGISTER=0 turns off the graph registration, so the two can coexist.
#
# Where megatron-core checks it (version/impl dependent):
#   - cuda_graph_impl=transformer_engine: asserted in every version 0.16-0.19
#     (TECudaGraphHelper in megatron/core/transformer/cuda_graphs.py, and validate_args in
#     megatron/training/arguments.py for Megatron-LM launches).
#   - cuda_graph_impl=local: 0.16-0.18 check only on GPUs with compute capability < 10
#     (pre-Blackwell); 0.19 removed that check.
#   Setting NCCL_GRAPH_REGISTER=0 whenever graphs and expandable segments are combined is
#   safe on all of them.

set -gx PYTORCH_CUDA_ALLOC_CONF expandable_segments:True
set -gx NCCL_GRAPH_REGISTER 0

# The check reads the environment of every rank, so the variable must reach the workers:
#   - srun: the default --export=ALL forwards it; with --export=NONE, list it explicitly.
#   - containers: pass it through (e.g. `-e NCCL_GRAPH_REGISTER=0`).
#   - Bridge/NeMo-Run executors: add it to the executor's env_vars next to
#     PYTORCH_CUDA_ALLOC_CONF.
#
# Quick check on a compute node before relaunching:
#   env | string match -r '^(NCCL_GRAPH_REGISTER|PYTORCH_CUDA_ALLOC_CONF)='
#
# Nothing else in the graph config needs to change for this; keep cuda_graph_impl,
# the scope/modules and the TE RNG tracker as they were.
