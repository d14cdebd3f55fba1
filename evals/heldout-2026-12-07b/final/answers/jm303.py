"""
Why the job hangs after "[after training is done]"
===================================================

Training itself is finished; the hang is in teardown. Captured CUDA graphs keep references to the
NCCL communicators/buffers that were used while capturing (TE per-layer graphs record the TP/EP
collectives, a full-iteration graph records everything in forward+backward). While those graph
objects are alive, torch.distributed.destroy_process_group() cannot finish tearing the
communicators down, so every rank sits there until SLURM kills the job (pytorch/pytorch#115388).

Megatron Bridge fixed this by deleting the graphs at the end of train() (`_delete_cuda_graphs`,
Megatron-Bridge PR #3459, with the "No CUDA Graphs were created to delete." guard from PR #3488).
For TE-scoped graphs MCore can only really free them with TE >= 2.10: it then calls graph.reset()
and logs "N graphs deleted with explicit reset"; on older TE the log says "deleted without explicit
reset" and the graphs may still pin NCCL resources.

The full-iteration + final-validation case is a separate hole: the final evaluation captures a
*validation* full-iteration graph after train() has already cleaned up the training graph, so
nothing deletes it before teardown. Bridge PR #5291 (after v0.6.0) deletes it in _finish_train()
before destroy_global_state().

Proper fix: upgrade Bridge (+ MCore) and use TE >= 2.10. Until then, call the helper below at the
very end of your launcher instead of relying on the default shutdown.
"""

import gc

import torch
import torch.distributed as dist


def shutdown_with_cuda_graphs(cuda_graph_helper=None) -> None:
    """Tear down a run that captured CUDA graphs without hanging."""
    # Make sure no replay is still in flight on any rank.
    torch.cuda.synchronize()

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        # Tear the communicators down first so nothing below can issue a new collective.
        dist.destroy_process_group()

    # Now drop every graph object so their private memory pools and the NCCL buffers they
    # reference are released.
    try:
        from megatron.core.full_cuda_graph import FullCudaGraphWrapper

        for stage in ("training", "validation"):
            FullCudaGraphWrapper.cuda_graph.pop(stage, None)
    except ImportError:
        pass

    try:
        from megatron.core.optimizer.optimizer_cuda_graph import OptimizerCudaGraphWrapper

        OptimizerCudaGraphWrapper.cuda_graph = None
    except ImportError:
        pass

    # TE per-layer graphs (cuda_graph_impl="transformer_engine"); guard like Bridge does.
    if cuda_graph_helper is not None and cuda_graph_helper.graphs_created():
        cuda_graph_helper.delete_cuda_graphs()  # graph.reset() per graph with TE >= 2.10

    gc.collect()


# Stop-gap if you can't patch the launcher: run that recipe with cuda_graph_impl="none"
# (this is what NVIDIA did for the Llama3.1 405B NVFP4 GB300 recipe while the hang was open).
