"""capture_prewarm.py -- fix for the full-iteration capture failure on torch 2.11 / MCore 0.19

Symptom (your log):
    UserWarning: The AccumulateGrad node's stream does not match the stream of the node
    that produced the incoming gradient ...
    torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
    capturing blocking stream  (cudaErrorStreamCaptureImplicit)

Diagnosis:
    The capture step is the first time some of the backward machinery actually runs on the
    capture stream. With the default cuda_graph_warmup_steps=3 and several micro-batches,
    DDP's bucketed grad reduction and the main_grad accumulation buffers are still being
    lazily set up when FullCudaGraphWrapper starts capturing. That first-time setup touches the
    legacy default stream (that is what the AccumulateGrad warning is telling you: the node
    is still bound to the default stream because it has not been "settled" yet), and touching
    the legacy stream while another stream is capturing is exactly cudaErrorStreamCaptureImplicit.

Fix:
    1. Give the run more eager warmup so every lazy path (grad buckets, NCCL communicators,
       cuBLAS workspaces) has been exercised before capture.
    2. Issue one eager all-reduce on the DP group and one matmul before the capture step,
       so nothing is created for the first time inside the graph.

Nothing else in the config has to change: keep cuda_graph_impl="full_iteration",
cuda_graph_modules=[], NaN checks off and the TE RNG tracker on.
"""

import torch
import torch.distributed as dist
from megatron.core import parallel_state


def apply_capture_prewarm(cfg):
    # more eager steps before capture (default is 3)
    cfg.model.cuda_graph_warmup_steps = 10


def prewarm_before_capture():
    """Call once right before the iteration that captures (iteration == warmup_steps)."""
    dev = torch.cuda.current_device()
    # cuBLAS handle + workspace on the current stream
    a = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
    (a @ a).sum().item()
    # make sure the DP / DP-CP communicators exist before capture
    grp = parallel_state.get_data_parallel_group(with_context_parallel=True)
    t = torch.ones(1, device=dev)
    dist.all_reduce(t, group=grp)
    torch.cuda.synchronize()


# In your loop:
#
#   apply_capture_prewarm(cfg)
#   ...
#   for it in range(train_iters):
#       if it == cfg.model.cuda_graph_warmup_steps:
#           prewarm_before_capture()
#       train_step(...)
#
# The AccumulateGrad warning should disappear once the buckets are warm, and the capture at
# iteration 10 goes through. Verify with "Capture CUDA graph for training!!!" followed by
# "CUDA graph capture done for training!!!" in the log.
