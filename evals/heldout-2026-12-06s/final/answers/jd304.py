"""cg_teardown.py -- clean shutdown for runs that hang after "[after training is done]".

Why the job hangs
-----------------
Captured CUDA graphs keep references to NCCL buffers (pytorch/pytorch#115388). As long as
any graph object is alive, process-group teardown cannot finish, so the job sits there until
SLURM kills it. Two places leave graphs behind:

  * the training graphs: TE per-layer graphs (TECudaGraphHelper) and the full-iteration
    "training" graph. Bridge deletes these after its loop from PR #3459 on;
  * graphs captured by the final validation that runs after the loop: the full-iteration
    wrapper keeps a separate "validation" graph. Bridge only deletes it before
    destroy_global_state() from PR #5291 (main, after v0.6.0).

The real fix is to upgrade Bridge / MCore / TE (TE >= 2.10 so MCore can call graph.reset()
explicitly; the log then says "N graphs deleted with explicit reset"). Until then, drive the
loop from your own launcher and call clean_exit() where it would otherwise tear down the
distributed state; the run then exits instead of burning the rest of the allocation.
"""

import gc

import torch
from megatron.core.full_cuda_graph import FullCudaGraphWrapper


def clean_exit(cuda_graph_helper=None) -> None:
    """Free every CUDA graph and shut the distributed state down in a safe order."""
    torch.cuda.synchronize()

    if torch.distributed.is_initialized():
        # 1) Make sure every rank has finished its last collective (final eval included).
        torch.distributed.barrier()
        # 2) Tear the communicators down first, so the graph destructors below do not try
        #    to release NCCL-registered buffers that a live communicator still owns.
        torch.distributed.destroy_process_group()

    # 3) Full-iteration graphs: training and the one recaptured by the final validation.
    for stage in ("training", "validation"):
        if FullCudaGraphWrapper.cuda_graph.get(stage) is not None:
            FullCudaGraphWrapper.cuda_graph[stage] = None
            FullCudaGraphWrapper.result[stage] = None

    # 4) TE per-layer graphs (explicit reset on TE >= 2.10). graphs_created() avoids the
    #    "No CUDA Graphs were created to delete." assert on runs shorter than the warmup.
    if cuda_graph_helper is not None and cuda_graph_helper.graphs_created():
        cuda_graph_helper.delete_cuda_graphs()

    gc.collect()


# Usage, at the end of your launcher:
#
#   train(...)                          # your loop around the training step
#   evaluate_and_print_results(...)     # the final validation
#   clean_exit(cuda_graph_helper)       # instead of calling destroy_process_group() yourself
#
# If py-spy still shows ranks stuck in destroy_process_group after this, you are on an old
# TE whose graphs cannot be reset: upgrade TE, or disable graphs for that recipe for now.
