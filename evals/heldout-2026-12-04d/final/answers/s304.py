# train_loop.py (excerpt) -- fix for the full-iteration capture failure on torch 2.11 /
# megatron-core 0.19 / MCore DDP:
#
#   UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
#   produced the incoming gradient ...
#   torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
#   capturing blocking stream   (cudaErrorStreamCaptureImplicit)
#
# Cause: DDP registers its grad hooks when it is constructed and stashes each parameter's
# AccumulateGrad node. Those nodes are bound to the stream that was current at construction --
# here the legacy default stream. The full-iteration graph captures backward on a different
# (capturing) stream, so the stale nodes make the legacy stream depend on the capture and CUDA
# aborts it. MCore 0.19's FullCudaGraphWrapper would call
# torch.autograd.graph.set_override_stale_capture_stream(True) to paper over this, but that API
# (pytorch/pytorch#180090) is not in torch 2.11 -- hence the extra warning in your log.
#
# Two options: a PyTorch build that has set_override_stale_capture_stream, or (below) keep DDP
# construction off the legacy default stream so no AccumulateGrad node references it.

import torch
from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig
from megatron.core.full_cuda_graph import FullCudaGraphWrapper


def wrap_with_ddp(model_chunks, config, ddp_config: DistributedDataParallelConfig):
    # Build DDP on a dedicated side stream, never on the legacy default stream.
    init_stream = torch.cuda.Stream()
    init_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(init_stream):
        wrapped = [DistributedDataParallel(config, ddp_config, m) for m in model_chunks]
    # make sure init work is done before params are touched on the main stream
    torch.cuda.current_stream().wait_stream(init_stream)
    return wrapped


def build_train_step(forward_backward_func, config):
    # unchanged: full-iteration graph around forward+backward, optimizer stays eager
    return FullCudaGraphWrapper(
        forward_backward_func,
        cuda_graph_warmup_steps=config.cuda_graph_warmup_steps,
    )


# in main():
#   model = build_model(config)                       # as before
#   model = wrap_with_ddp(model, config, ddp_config)  # <- the change
#   optimizer = get_megatron_optimizer(opt_config, model)
#   fwd_bwd = build_train_step(get_forward_backward_func(), config)
#   ...
# Expected after the change: the stale-stream UserWarning is gone, the log shows
# "Capture CUDA graph for training!!!" then "CUDA graph capture done for training!!!",
# and replayed steps match the eager loss.
# Remember full iteration still needs the NaN checks off (--no-check-for-nan-in-loss-and-grad)
# and the TE RNG tracker on.
