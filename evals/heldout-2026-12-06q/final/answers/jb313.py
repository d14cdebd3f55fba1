"""Own training loop around MCore 0.19 + MCore DDP + full-iteration graph on torch 2.11.

Why the capture dies
--------------------
``operation would make the legacy stream depend on a capturing blocking stream``
(cudaErrorStreamCaptureImplicit), preceded by
``The AccumulateGrad node's stream does not match the stream of the node that produced
the incoming gradient``.

MCore DDP registers its grad hooks at construction time, and to do that it creates (and
keeps) the parameters' AccumulateGrad nodes. Those nodes remember the stream that was
current at that moment -- the legacy default stream. FullCudaGraphWrapper / TECudaGraphHelper
capture on MCore's *shared capture stream*. During the captured backward, autograd
syncs the AccumulateGrad node back to its recorded (legacy) stream, which would make the
legacy stream depend on the capturing stream -> illegal during capture.

MCore 0.19 knows about this: at capture time FullCudaGraphWrapper calls
``torch.autograd.graph.set_override_stale_capture_stream(True)`` if it exists and otherwise
logs a warning pointing at pytorch/pytorch#180090. Stock torch 2.11 doesn't have it.

Two ways out
------------
1. Use a PyTorch build that includes #180090 (``set_override_stale_capture_stream``);
   then nothing below is needed.
2. On torch 2.11: build the model, wrap it in DDP *and* run every step on the shared
   capture stream, so the AccumulateGrad nodes are bound to the same stream that captures.
   (Measured on an H200, torch 2.11, tiny dense proxy: default stream -> capture fails;
   shared stream -> full_iteration captures and replays, 33.0 -> 1.71 ms/step, losses identical.)

(If instead you see capture failures only after loading a checkpoint, that's
Megatron-LM#3871, fixed by upgrading MCore -- different problem.)
"""
import torch
from megatron.core.full_cuda_graph import get_shared_capture_stream


def main(args):
    torch.cuda.set_device(args.local_rank)      # select the device BEFORE asking for the stream
    # ... initialize_model_parallel(...) etc.

    if hasattr(torch.autograd.graph, "set_override_stale_capture_stream"):
        capture_ctx = torch.cuda.stream(torch.cuda.current_stream())   # torch has #180090: default stream ok
    else:
        capture_ctx = torch.cuda.stream(get_shared_capture_stream())

    with capture_ctx:
        model = build_gpt_model(args)                     # params created on this stream
        model = wrap_with_mcore_ddp(model, args)          # grad hooks / AccumulateGrad nodes created here
        optimizer = build_optimizer(model, args)
        fwd_bwd = build_full_iteration_wrapper(args)      # FullCudaGraphWrapper(get_forward_backward_func(), ...)

        for it in range(args.train_iters):                # warmup, capture and replay all on the same stream
            train_step(fwd_bwd, model, optimizer, it)

    torch.cuda.synchronize()
