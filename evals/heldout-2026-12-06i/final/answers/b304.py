"""graph_safe_shutdown.py - drop-in end-of-training hook for CUDA-graph runs.

Symptom this fixes: training finishes, '[after training is done]' is printed, and then
all 64 ranks sit idle until the SLURM time limit (cuda_graph_impl=transformer_engine,
and also full_iteration runs that end with a final validation pass).

Root cause: captured CUDA graphs keep references to NCCL buffers (see
pytorch/pytorch#115388). Bridge's own cleanup (_delete_cuda_graphs) only drops the
*training* full-iteration graph; a validation graph recaptured by the final evaluation
is still alive at teardown, and on TE < 2.10 the per-layer TE graphs are only
dereferenced instead of reset.

Approach: shut down the NCCL process group first, so the communicators are torn down
while every rank is still in lock-step (right after a barrier), and only then release
the graph objects and their memory pools. Releasing graphs first lets ranks drift
apart during gc and can leave one rank inside a collective while its peers are
already destroying the group.

Usage (Bridge):  call graph_safe_shutdown(cuda_graph_helper) at the end of your
training script, or register it with install().
"""

import atexit
import gc
import logging

import torch

log = logging.getLogger(__name__)


def _drop_graphs(cuda_graph_helper=None):
    try:
        from megatron.core.full_cuda_graph import FullCudaGraphWrapper

        for stage in ("training", "validation"):
            FullCudaGraphWrapper.cuda_graph[stage] = None
            FullCudaGraphWrapper.result[stage] = None
            FullCudaGraphWrapper.curr_iteration[stage] = 0
    except ImportError:
        pass

    try:
        from megatron.core.optimizer.optimizer_cuda_graph import OptimizerCudaGraphWrapper

        OptimizerCudaGraphWrapper.cuda_graph = None
        OptimizerCudaGraphWrapper.result = None
    except ImportError:
        pass

    # TE per-layer graphs: graph.reset() with TE >= 2.10, plain deref otherwise.
    if cuda_graph_helper is not None and cuda_graph_helper.graphs_created():
        cuda_graph_helper.delete_cuda_graphs()

    gc.collect()


def graph_safe_shutdown(cuda_graph_helper=None):
    if not torch.distributed.is_initialized():
        _drop_graphs(cuda_graph_helper)
        return

    rank = torch.distributed.get_rank()
    torch.cuda.synchronize()
    torch.distributed.barrier()

    # 1) tear down NCCL while all ranks are in lock-step
    log.info("rank %d: destroying process group", rank)
    torch.distributed.destroy_process_group()

    # 2) then release graphs + their private memory pools
    log.info("rank %d: releasing CUDA graphs", rank)
    _drop_graphs(cuda_graph_helper)
    torch.cuda.empty_cache()


def install(cuda_graph_helper=None):
    """Run graph_safe_shutdown at interpreter exit (before CUDA context teardown)."""
    atexit.register(graph_safe_shutdown, cuda_graph_helper)


# Longer term: upgrade Bridge past PR #5291 (cleans up graphs recaptured by the final
# evaluation), megatron-core 0.19.x and TE >= 2.10 so TE graphs are reset explicitly
# ("N graphs deleted with explicit reset" in the log). If you can't upgrade yet and the
# hook above isn't an option, disable CUDA graphs for the affected recipe.
