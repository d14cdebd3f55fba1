"""graph_stream_fix.py - make full-iteration CUDA-graph capture work with MCore DDP in a custom loop.

Problem this fixes
------------------
PyTorch 2.11 + megatron-core 0.19, MCore DDP, cuda_graph_impl="full_iteration":

    UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
    produced the incoming gradient ...
    torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
    capturing blocking stream   (cudaErrorStreamCaptureImplicit)

Why
---
MCore DDP builds and keeps (stashes) every parameter's AccumulateGrad node when it registers its
grad hooks at init. Autograd binds each node to the stream that was current at creation - here the
legacy default stream. FullCudaGraphWrapper captures forward/backward on MCore's shared capture
stream, so the captured backward tries to make the legacy stream depend on the capturing stream.

Fix
---
PyTorch ships a switch for exactly this: ``torch.autograd.graph.set_override_stale_capture_stream``
(pytorch/pytorch#180090). It is present in torch 2.11; MCore 0.19 only turns it on inside
FullCudaGraphWrapper at the capture step, which is too late for nodes that DDP created at init -
hence the warning. Turning it on globally, *before* the model and DDP are built, makes autograd
re-target stale AccumulateGrad streams to the capturing stream, so no restructuring of the training
loop (side streams etc.) is needed.

Usage
-----
    import graph_stream_fix
    graph_stream_fix.enable()          # first thing after torch.cuda.set_device(local_rank)
    model = build_model(...); model = [DistributedDataParallel(cfg, ddp_cfg, m) for m in model]
    ... train as before with cuda_graph_impl="full_iteration" ...

Keep the usual full-iteration companions: cuda_graph_modules=[], use_te_rng_tracker=True,
NaN-in-loss/grad checks off.
"""

import logging

import torch

log = logging.getLogger(__name__)


def enable() -> None:
    """Turn on the stale-capture-stream override process-wide (call before building DDP)."""
    torch.autograd.graph.set_override_stale_capture_stream(True)
    log.info("stale capture stream override enabled (torch %s)", torch.__version__)


def check() -> bool:
    """Quick self-test you can run on one GPU before the real job."""
    enable()
    lin = torch.nn.Linear(16, 16, device="cuda")
    # create the AccumulateGrad node on the default stream, like DDP does at init
    _ = lin.weight.expand_as(lin.weight).grad_fn.next_functions[0][0]
    x = torch.randn(4, 16, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        lin(x).sum().backward()          # warmup
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        lin(x).sum().backward()
    g.replay()
    torch.cuda.synchronize()
    return True


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    print("capture OK:", check())
