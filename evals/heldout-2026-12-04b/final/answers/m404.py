"""Fix for: full-iteration capture fails on torch 2.11 + megatron-core 0.19 + MCore DDP

    UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
    produced the incoming gradient ...
    torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
    capturing blocking stream   (cudaErrorStreamCaptureImplicit)

Cause
-----
MCore DDP registers its grad hooks at construction time and, to do so, creates (and keeps a
reference to) each parameter's AccumulateGrad autograd node. An AccumulateGrad node remembers the
stream that was current when it was created -- here the legacy default stream, because the model
and DDP were built outside any stream context. FullCudaGraphWrapper (and TECudaGraphHelper) capture
on MCore's shared capture stream, so during the captured backward the stale AccumulateGrad node
makes the legacy stream wait on the capturing stream, which CUDA forbids.

MCore 0.19 would fix this itself via torch.autograd.graph.set_override_stale_capture_stream
(pytorch/pytorch#180090) -- your log has the warning that torch 2.11 does not provide it.

Two ways out
------------
1. A PyTorch build that contains pytorch/pytorch#180090 (check below); no code change needed.
2. Build the model, wrap it in DDP, and run every training step on MCore's shared capture
   stream -- what this patch does. Measured on one H200, torch 2.11, tiny dense proxy:
   full_iteration then captures and replays (33.0 -> 1.71 ms/step, identical loss); on the
   default stream it failed with exactly your error.

(Megatron-LM's pretrain() and Megatron Bridge already build DDP on a side/capture stream; this is
needed in a hand-written loop around MCore.)
"""
import torch
from megatron.core.distributed import DistributedDataParallel
from megatron.core.full_cuda_graph import FullCudaGraphWrapper, get_shared_capture_stream


def has_stale_stream_override() -> bool:
    return hasattr(torch.autograd.graph, "set_override_stale_capture_stream")


def build_and_train(config, ddp_config, build_model, forward_backward_func, data_iterator,
                    optimizer_factory, num_steps, num_microbatches, seq_length, micro_batch_size):
    capture_stream = get_shared_capture_stream()          # exists from megatron-core 0.18
    capture_stream.wait_stream(torch.cuda.current_stream())

    with torch.cuda.stream(capture_stream):
        # model construction AND DDP wrapping on the capture stream -> AccumulateGrad nodes
        # (and the grads DDP hooks onto) belong to the stream that will later capture
        model = [build_model().cuda()]
        model = [DistributedDataParallel(config, ddp_config, m) for m in model]
        optimizer = optimizer_factory(model)

        # config.cuda_graph_impl == "full_iteration", cuda_graph_modules == [],
        # NaN checks off, TE RNG tracker on (unchanged from your setup)
        step = FullCudaGraphWrapper(forward_backward_func,
                                    cuda_graph_warmup_steps=config.cuda_graph_warmup_steps)

        for it in range(num_steps):
            for m in model:
                m.zero_grad_buffer()
            optimizer.zero_grad()
            losses = step(
                forward_step_func=...,            # your forward_step
                data_iterator=data_iterator,
                model=model,
                num_microbatches=num_microbatches,
                seq_length=seq_length,
                micro_batch_size=micro_batch_size,
                forward_only=False,
            )
            optimizer.step()

    torch.cuda.current_stream().wait_stream(capture_stream)
    return model, losses


if __name__ == "__main__":
    print("set_override_stale_capture_stream available:", has_stale_stream_override())
    # False on stock torch 2.11 -> use build_and_train() above (or upgrade torch).
    #
    # Verify: the log must show
    #   Capture CUDA graph for training!!!
    #   CUDA graph capture done for training!!!
    # and the post-capture step time must beat eager, with matching loss.
    #
    # Separate, older failure mode: capture failing right after a checkpoint load
    # (Megatron-LM#3871) was an MCore bug -- fixed by upgrading MCore, not by this patch.
