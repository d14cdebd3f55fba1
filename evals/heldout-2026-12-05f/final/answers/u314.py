"""capture_stream_step.py: make your own MCore training loop capture full-iteration graphs on
PyTorch 2.11 without `cudaErrorStreamCaptureImplicit`.

What the error means
--------------------
  UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
  produced the incoming gradient ...
  torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
  capturing blocking stream   (cudaErrorStreamCaptureImplicit)

MCore DDP registers a grad hook on every parameter's AccumulateGrad node and keeps the nodes
(DistributedDataParallel.grad_accs). FullCudaGraphWrapper captures forward+backward on MCore's
shared capture stream (megatron.core.full_cuda_graph.get_shared_capture_stream()), while your
loop issues everything else on the legacy default stream. During the captured backward,
autograd syncs the default stream with the capturing one, and CUDA refuses that.

MCore 0.19 tries to handle it: at capture it calls
torch.autograd.graph.set_override_stale_capture_stream(True) when PyTorch has it
(pytorch/pytorch#180090). Torch 2.11 does not, hence the extra warning in your log. A torch
build with that override is one fix. The other, for stock 2.11, is below: run the training
steps on the shared capture stream so backward and capture agree on the stream. Model
construction and DDP wrapping can stay where they are; only the steps need to move.
"""

import functools

import torch
from megatron.core.full_cuda_graph import get_shared_capture_stream  # megatron-core 0.18+


def on_capture_stream(step_fn):
    """Run a training step on MCore's shared capture stream, then rejoin the default stream."""

    @functools.wraps(step_fn)
    def wrapper(*args, **kwargs):
        stream = get_shared_capture_stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            out = step_fn(*args, **kwargs)
        torch.cuda.current_stream().wait_stream(stream)
        return out

    return wrapper


# --- usage in your loop ---------------------------------------------------------------
#
#   model = [DistributedDataParallel(config, ddp_config, m) for m in model]   # unchanged
#   optimizer = get_megatron_optimizer(opt_config, model)
#
#   @on_capture_stream
#   def step():
#       return train_step(forward_step_func, data_iterator, model, optimizer, scheduler)
#
#   for it in range(train_iters):
#       loss = step()
#
# Expected log after the fix:
#   Capture CUDA graph for training!!!
#   CUDA graph capture done for training!!!
# (the set_override_stale_capture_stream warning still prints on torch 2.11; it is harmless)
#
# If the capture failures begin only after loading a checkpoint, that is Megatron-LM#3871,
# fixed by upgrading megatron-core.
