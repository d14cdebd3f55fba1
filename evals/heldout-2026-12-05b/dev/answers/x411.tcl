#%Module1.0
##
## megatron/cudagraph-alloc  -- allocator env for Megatron CUDA graphs
##
## Short answer to "should I drop expandable segments?": no. The assert is not saying
## expandable segments and CUDA graphs are incompatible; it is asking for a second variable.
## NCCL can register the buffers it uses inside a captured graph (graph user-buffer
## registration). With PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True the caching
## allocator maps and unmaps physical pages under those virtual addresses, so a registered
## buffer can go stale and a replayed collective touches memory that is no longer there ->
## "illegal memory access". NCCL_GRAPH_REGISTER=0 turns that registration off; expandable
## segments then stay safe and keep their fragmentation benefit.
##
## Which versions check it (megatron-core):
##   cuda_graph_impl=transformer_engine : TECudaGraphHelper and Megatron-LM's arguments.py
##                                        assert it in every version 0.16-0.19
##   cuda_graph_impl=local              : asserted only on pre-Blackwell GPUs (compute
##                                        capability < 10) in 0.16-0.18; check removed in 0.19
## Setting it is harmless everywhere, so this module always sets both.
##
## The variable must be in the environment of every rank before Python starts (the check reads
## os.environ when the graph helper is built): `module load` in the sbatch script, before srun/torchrun.

proc ModulesHelp { } {
    puts stderr "Sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True together with NCCL_GRAPH_REGISTER=0"
    puts stderr "for Megatron-Core / Megatron Bridge runs with CUDA graphs."
}

module-whatis "expandable_segments allocator + NCCL_GRAPH_REGISTER=0 for Megatron CUDA graphs"

conflict megatron/cudagraph-alloc

# append so an existing PYTORCH_CUDA_ALLOC_CONF (e.g. garbage_collection_threshold) is kept
append-path -d , PYTORCH_CUDA_ALLOC_CONF expandable_segments:True
setenv          NCCL_GRAPH_REGISTER      0

# usage:
#   module use $HOME/modulefiles
#   module load megatron/cudagraph-alloc
#   srun ... torchrun ... --cuda-graph-impl transformer_engine ...
