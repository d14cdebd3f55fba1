# teardown_patch.py -- drop into your launcher until you can upgrade Bridge.
#
# Why the job hangs after "[after training is done]":
#   The TE per-layer graphs (and the full-iteration graph, including the one re-captured by
#   the final validation) captured NCCL collectives and keep references to NCCL buffers.
#   Bridge versions before PR #3459 never free them, so teardown never completes
#   (pytorch/pytorch#115388). Newer Bridge calls delete_cuda_graphs() itself (+ #3488 guard,
#   + #5291 for graphs recaptured by the final eval). TE >= 2.10 adds an explicit graph reset.
#
# Workaround: tear the process groups down first so NCCL stops waiting on in-flight work,
# then release the graphs and let GC reclaim their pools.

import gc
import torch
import torch.distributed as dist
from megatron.core.full_cuda_graph import FullCudaGraphWrapper


def shutdown(cuda_graph_helper=None):
    # 1) stop NCCL first, otherwise the graph pools keep the comms busy
    if dist.is_initialized():
        dist.destroy_process_group()

    # 2) now free the captured graphs
    for key in ("training", "validation"):
        if key in FullCudaGraphWrapper.cuda_graph:
            FullCudaGraphWrapper.cuda_graph[key] = None
    if cuda_graph_helper is not None and cuda_graph_helper.graphs_created():
        cuda_graph_helper.delete_cuda_graphs()   # TE >= 2.10: "graphs deleted with explicit reset"

    gc.collect()
    torch.cuda.synchronize()

# Longer term: upgrade Bridge / megatron-core / TE (>= 2.10). If you cannot, run that recipe with
# cuda_graph_impl="none" (what was done for the Llama3.1 405B NVFP4 GB300 recipe).
