"""clean_exit.py - stop Megatron/Bridge CUDA-graph jobs from hanging at exit.

Why the job hangs
-----------------
Training is finished when "[after training is done]" is printed. What hangs is
teardown. Captured CUDA graphs (TE per-layer graphs from TECudaGraphHelper, the
full-iteration graphs in FullCudaGraphWrapper.cuda_graph["training"/"validation"],
and the optimizer graph) keep references to NCCL buffers that were used inside the
captured region, so process-group shutdown never finishes (pytorch/pytorch#115388).
The full-iteration + final-validation variant is the same thing: the last
evaluation captures a fresh "validation" graph after train() already cleaned up
its own graphs. Bridge v0.6.0 does not delete that one before
destroy_global_state(). Bridge main does (PR #5291).

Real fix: upgrade Bridge / MCore / TE together. With TE >= 2.10, MCore calls
graph.reset() explicitly (log: "... graphs deleted with explicit reset").

Until then, call `shutdown_with_graphs()` from your launcher instead of
relying on the framework's teardown.
"""

import gc
import logging

import torch
import torch.distributed as dist

log = logging.getLogger(__name__)


def _free_graphs(cuda_graph_helper=None):
    """Drop every graph object MCore/Bridge may still hold."""
    try:
        from megatron.core.full_cuda_graph import FullCudaGraphWrapper

        for key in ("training", "validation"):
            if FullCudaGraphWrapper.cuda_graph.get(key) is not None:
                FullCudaGraphWrapper.cuda_graph[key] = None
                FullCudaGraphWrapper.result[key] = None
    except ImportError:
        pass

    try:
        from megatron.core.optimizer.optimizer_cuda_graph import OptimizerCudaGraphWrapper

        if getattr(OptimizerCudaGraphWrapper, "cuda_graph", None) is not None:
            OptimizerCudaGraphWrapper.cuda_graph = None
    except ImportError:
        pass

    if cuda_graph_helper is not None and cuda_graph_helper.graphs_created():
        # TE >= 2.10: explicit reset of every per-layer graph.
        cuda_graph_helper.delete_cuda_graphs()

    gc.collect()
    torch.cuda.synchronize()


def shutdown_with_graphs(cuda_graph_helper=None):
    """Ordered shutdown for graph-enabled runs.

    Order matters here:
      1. synchronize, so no replay is still running on the device;
      2. destroy the process group first, so NCCL has no collective in flight
         that the graph teardown could race with, and the communicators are
         released in a well-defined state;
      3. then free the graph objects and their private memory pools.
    """
    torch.cuda.synchronize()

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        log.info("destroying process group before freeing CUDA graphs")
        dist.destroy_process_group()

    _free_graphs(cuda_graph_helper)
    log.info("CUDA graphs freed; exiting")


# Usage in a custom launcher around Bridge:
#
#     from megatron.bridge.training.pretrain import pretrain
#     try:
#         pretrain(cfg, forward_step)
#     finally:
#         shutdown_with_graphs()
#
# Stop-gap if you cannot touch the code: disable graphs for this recipe
# (model.cuda_graph_impl="none"), or skip the final validation of full-iteration
# runs (validation.eval_iters=0).
