# ~/.bashrc / job env snippet -- keep expandable segments, add the one variable the assert asks for.
#
# Q: drop expandable_segments?  A: no. The message is not "incompatible", it is "also set
# NCCL_GRAPH_REGISTER=0". With expandable segments the caching allocator maps/unmaps physical
# pages behind stable virtual addresses; NCCL's CUDA-graph user-buffer registration
# (NCCL_GRAPH_REGISTER, on by default) registers buffers captured in a graph, and those
# registrations can outlive the mapping -> illegal memory access on replay. Turning graph
# registration off removes that risk; expandable segments keep helping fragmentation.
#
# Where the check lives (read from Megatron-LM source):
#   - TE impl (cuda_graph_impl=transformer_engine): TECudaGraphHelper + megatron/training/arguments.py
#     assert it in every release 0.16 .. 0.19.
#   - local impl (CudaGraphManager): only on pre-Blackwell GPUs (compute capability < 10), and only
#     in 0.16 .. 0.18 -- 0.19 dropped that check.
#   - full_iteration / none: no check.
# So whether you hit it depends on impl + version, but for TE graphs the answer is always the same.

export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export NCCL_GRAPH_REGISTER=0          # must be in the environment before python starts

# sanity check before launching (every rank inherits the env from here / srun --export=ALL)
env | grep -E '^(PYTORCH_CUDA_ALLOC_CONF|NCCL_GRAPH_REGISTER)='

# then launch as before, e.g.
# torchrun --nproc-per-node 8 pretrain_gpt.py ... --cuda-graph-impl transformer_engine --cuda-graph-modules attn --te-rng-tracker
