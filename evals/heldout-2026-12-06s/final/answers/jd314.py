# Fix for: torch.AcceleratorError: CUDA error: operation would make the legacy stream depend
# on a capturing blocking stream (cudaErrorStreamCaptureImplicit), full-iteration graph,
# PyTorch 2.11, megatron-core 0.19, MCore DDP, own training loop.
#
# Diagnosis
# ---------
# The UserWarning right before it ("The AccumulateGrad node's stream does not match the stream
# of the node that produced the incoming gradient") is the real hint. Your backward runs on
# the legacy default stream while FullCudaGraphWrapper captures on MCore's shared capture
# stream (megatron.core.full_cuda_graph.get_shared_capture_stream()). During capture the
# gradient accumulation then gets synchronized back to the legacy stream, which CUDA refuses
# while another stream is capturing.
#
# MCore 0.19 would paper over this with torch.autograd.graph.set_override_stale_capture_stream
# (pytorch/pytorch#180090), but torch 2.11 doesn't have it: that's the warning MCore logs
# right before capture. Two options:
#   1. a PyTorch build that has set_override_stale_capture_stream, or
#   2. run the training steps on the shared capture stream (below).
#
# You don't need to touch model construction or the DDP wrapper. AccumulateGrad nodes are
# looked up per backward pass, so once forward/backward run on the capture stream the nodes
# follow it. Keep building the model and DDP exactly where you do now.

import torch
from megatron.core.full_cuda_graph import get_shared_capture_stream


def run_training(model, optimizer, forward_backward_func, data_iterator, train_iters, train_step):
    """Drive every training step on MCore's shared capture stream.

    `model` is your existing list of MCore DDP chunks (built on the default stream, as before);
    `forward_backward_func` is already wrapped in FullCudaGraphWrapper.
    """
    capture_stream = get_shared_capture_stream()
    # make the capture stream see everything the default stream did during setup
    capture_stream.wait_stream(torch.cuda.current_stream())

    with torch.cuda.stream(capture_stream):
        for iteration in range(train_iters):
            # warm-up steps (cuda_graph_warmup_steps, default 3) run eagerly on this stream,
            # the next one captures, later ones replay
            train_step(forward_backward_func, data_iterator, model, optimizer)

    torch.cuda.current_stream().wait_stream(capture_stream)


# Sanity check once it runs: the log should show
#   Capture CUDA graph for training!!!
#   CUDA graph capture done for training!!!
# after the warm-up steps. Keep the NaN checks off and the TE RNG tracker on for full_iteration.
# If you also load a checkpoint before training: capture failures after checkpoint load
# (Megatron-LM#3871) were fixed in newer MCore, so stay on the latest 0.19.x.
