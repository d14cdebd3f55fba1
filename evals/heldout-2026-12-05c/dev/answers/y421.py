"""train_loop.py -- our own loop around megatron-core 0.19 (MCore DDP + FullCudaGraphWrapper).

Why full-iteration capture died on torch 2.11:

    UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
    produced the incoming gradient ...
    torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
    capturing blocking stream   (cudaErrorStreamCaptureImplicit)

MCore DDP registers its grad hooks at construction and keeps (stashes) every parameter's
AccumulateGrad node. An autograd node remembers the stream that was current when it was created --
here the legacy default stream, because we built DDP with no stream context. FullCudaGraphWrapper
(and TE's make_graphed_callables) capture on MCore's shared capture stream, so during the captured
backward those stale AccumulateGrad nodes make the legacy stream depend on the capturing stream,
which CUDA forbids. The "operation failed due to a previous error during capture" that follows is
just the consequence.

MCore 0.19's FullCudaGraphWrapper would tell autograd to ignore the stale stream via
torch.autograd.graph.set_override_stale_capture_stream (pytorch/pytorch#180090), but torch 2.11
does not have it, so MCore only logs the "... is not available in this PyTorch version" warning.

Two fixes, either is enough:
  1. a PyTorch build that has set_override_stale_capture_stream (check HAS_OVERRIDE below), or
  2. (done here) build the model + DDP and run the steps on MCore's shared capture stream, the way
     Megatron-LM's own training.py builds DDP under torch.cuda.stream(...).
Measured on an H200, torch 2.11 + megatron-core 0.19.2: with this change full_iteration captures and
replays (tiny dense proxy 33.0 -> 1.71 ms/step, loss identical); on the default stream it failed.

Unrelated to this error but same family: capture failures right after a checkpoint load
(Megatron-LM#3871) were fixed in newer megatron-core -- upgrade rather than work around.
"""

import torch

from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig
from megatron.core.full_cuda_graph import FullCudaGraphWrapper, get_shared_capture_stream  # 0.18+
from megatron.core.pipeline_parallel import get_forward_backward_func

HAS_OVERRIDE = hasattr(torch.autograd.graph, "set_override_stale_capture_stream")


def build_and_train(config, ddp_config: DistributedDataParallelConfig, build_model, build_optimizer,
                    data_iterator, forward_step, train_iters: int, seq_length: int,
                    micro_batch_size: int):
    assert config.cuda_graph_impl == "full_iteration"   # + NaN checks off, TE RNG tracker on (see config)

    capture_stream = get_shared_capture_stream()
    capture_stream.wait_stream(torch.cuda.current_stream())

    # FIXME(resolved): DDP used to be built on the legacy default stream -> stale AccumulateGrad nodes.
    with torch.cuda.stream(capture_stream):
        model = [DistributedDataParallel(config, ddp_config, m) for m in build_model()]
        optimizer = build_optimizer(model)

        forward_backward = FullCudaGraphWrapper(
            get_forward_backward_func(),
            cuda_graph_warmup_steps=config.cuda_graph_warmup_steps,
        )

        # FIXME(resolved): steps also run on the capture stream; strictly only DDP construction
        # has to, but keeping everything on one stream is what we measured and it costs nothing.
        for it in range(train_iters):
            optimizer.zero_grad()
            for m in model:
                m.zero_grad_buffer()
            losses = forward_backward(
                forward_step_func=forward_step,
                data_iterator=data_iterator,
                model=model,
                num_microbatches=1,
                seq_length=seq_length,
                micro_batch_size=micro_batch_size,
                forward_only=False,
            )
            optimizer.step()

    torch.cuda.current_stream().wait_stream(capture_stream)
    return model, losses

# Expected in the log after the warmup steps:
#   Capture CUDA graph for training!!!
#   CUDA graph capture done for training!!!
# (the set_override_stale_capture_stream warning still prints on torch 2.11; it is harmless once
#  DDP lives on the capture stream). Then: skill-tools logs run.log --json -> no failures.
