# Makefile: launch targets for the TE-graph pretraining job
#
# Q: expandable_segments + TE-scoped CUDA graphs dies at startup with
#    "Setting NCCL_GRAPH_REGISTER=0 to avoid illegal memory access when using CUDA Graph
#     with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."
#    Should I drop expandable segments?
#
# A: No. Keep expandable segments and export NCCL_GRAPH_REGISTER=0 next to it. The assert
#    is asking for that companion setting, not telling you the allocator mode is banned.
#
#    Why: when NCCL collectives are captured into a CUDA graph, NCCL by default registers
#    the user buffers they touch for the graph. Expandable segments can unmap/remap the
#    physical pages behind those buffers, so a replay can hit a stale registration and fault
#    with an illegal memory access. NCCL_GRAPH_REGISTER=0 disables graph-time registration.
#    The collectives still run, just without that registration.
#
#    Where the check lives (version / impl dependent):
#      cuda_graph_impl=transformer_engine
#        - megatron/training/arguments.py (Megatron-LM launcher): 0.16, 0.17, 0.18, 0.19
#        - TECudaGraphHelper.__init__ (megatron/core/transformer/cuda_graphs.py): 0.16-0.19,
#          so Bridge hits it too even though it doesn't use arguments.py
#      cuda_graph_impl=local (CudaGraphManager)
#        - 0.16-0.18: only on pre-Blackwell GPUs (compute capability < 10)
#        - 0.19: check removed
#    For TE graphs the requirement has never gone away in 0.16-0.19. Set it unconditionally.

NPROC ?= 8
TRAIN ?= pretrain_gpt.py
MODEL_ARGS ?=

# Exported into the environment of every recipe line, so all torchrun ranks inherit it.
export PYTORCH_CUDA_ALLOC_CONF := expandable_segments:True
export NCCL_GRAPH_REGISTER := 0

# 0.16/0.17 spell the graph scope --cuda-graph-scope; 0.18+ prefer --cuda-graph-modules
# (the old flag still works there, with a deprecation warning).
GRAPH_ARGS_016 := --cuda-graph-impl transformer_engine --cuda-graph-scope attn
GRAPH_ARGS_018 := --cuda-graph-impl transformer_engine --cuda-graph-modules attn

.PHONY: env-check train-te-graphs-016 train-te-graphs-018

env-check:
	@echo "PYTORCH_CUDA_ALLOC_CONF=$$PYTORCH_CUDA_ALLOC_CONF"
	@echo "NCCL_GRAPH_REGISTER=$$NCCL_GRAPH_REGISTER"
	@case "$$PYTORCH_CUDA_ALLOC_CONF" in *expandable_segments:True*) \
	    test "$$NCCL_GRAPH_REGISTER" = "0" || { echo "missing NCCL_GRAPH_REGISTER=0"; exit 1; } ;; esac

train-te-graphs-016: env-check
	torchrun --nproc_per_node=$(NPROC) $(TRAIN) $(MODEL_ARGS) $(GRAPH_ARGS_016)

train-te-graphs-018: env-check
	torchrun --nproc_per_node=$(NPROC) $(TRAIN) $(MODEL_ARGS) $(GRAPH_ARGS_018)

# Multi-node (srun/sbatch): make sure the export reaches the remote ranks, e.g.
# `srun --export=ALL ...` or set it in the container env. A value set only in your login
# shell won't help the ranks that assert.
