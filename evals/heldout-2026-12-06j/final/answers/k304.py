"""teardown_guard.py — drop-in for our Bridge launcher.

Problem: jobs with cuda_graph_impl="transformer_engine" (and the full-iteration
recipe with a final validation) finish, print "[after training is done]" and
then hang until the SLURM limit.

Cause: captured CUDA graphs keep references to NCCL buffers/communicators
(pytorch/pytorch#115388). As long as those graph objects are alive, process
teardown cannot complete. Bridge added its own cleanup (_delete_cuda_graphs,
PRs #3459/#3488, and #5291 for graphs re-captured by the final evaluation);
MCore resets TE graphs explicitly with TE >= 2.10 ("graphs deleted with
explicit reset"). Until we're on a Bridge/TE with all of that, this module does
the same thing from the launcher.

Usage (in the launcher, after pretrain() returns):

    from teardown_guard import shutdown_with_graphs
    pretrain(cfg, forward_step)
    shutdown_with_graphs(cuda_graph_helper=None)
"""

import gc
import logging

import torch

log = logging.getLogger(__name__)


def _drop_full_iteration_graphs() -> None:
    try:
        from megatron.core.full_cuda_graph import FullCudaGraphWrapper
    except ImportError:
        return
    # Training graph and the graph re-captured by the final validation.
    for stage in ("training", "validation"):
        if FullCudaGraphWrapper.cuda_graph.get(stage) is not None:
            FullCudaGraphWrapper.cuda_graph[stage] = None
            FullCudaGraphWrapper.result[stage] = None
            FullCudaGraphWrapper.curr_iteration[stage] = 0


def _drop_optimizer_graph() -> None:
    try:
        from megatron.core.optimizer.optimizer_cuda_graph import OptimizerCudaGraphWrapper
    except ImportError:
        return
    OptimizerCudaGraphWrapper.cuda_graph = None
    OptimizerCudaGraphWrapper.result = None


def shutdown_with_graphs(cuda_graph_helper=None) -> None:
    """Tear down NCCL first, then release the graphs.

    Destroying the process group first stops the NCCL watchdog and aborts the
    communicators, so the graph objects no longer have live communicators to
    wait on; deleting them afterwards is then just host-side bookkeeping.
    """
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.cuda.synchronize()
        torch.distributed.destroy_process_group()
        log.info("process group destroyed")

    # TE per-layer graphs (cuda_graph_impl="transformer_engine"):
    # TECudaGraphHelper.delete_cuda_graphs() calls graph.reset() on TE >= 2.10.
    if cuda_graph_helper is not None and cuda_graph_helper.graphs_created():
        cuda_graph_helper.delete_cuda_graphs()

    _drop_full_iteration_graphs()
    _drop_optimizer_graph()
    gc.collect()
    torch.cuda.empty_cache()
    log.info("CUDA graphs released")


# Longer term: upgrade Bridge (main with #5291), MCore and TE >= 2.10 so the
# built-in cleanup covers both the TE case and the final-validation recapture;
# as a stop-gap you can also disable CUDA graphs for the affected recipe.
