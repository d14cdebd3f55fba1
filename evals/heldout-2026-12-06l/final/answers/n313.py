# Fix for: "CUDA error: operation would make the legacy stream depend on a capturing blocking stream"
# (cudaErrorStreamCaptureImplicit) during full-iteration capture, torch 2.11 + megatron-core 0.19 + MCore DDP,
# preceded by "UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
# produced the incoming gradient".
#
# What happens
# ------------
# MCore DDP registers its grad hooks at construction time; doing that creates (and DDP keeps) the
# AccumulateGrad node of every parameter, and autograd binds each node to the stream that was current
# when it was created -> the legacy default stream, because your DDP init ran there.
# FullCudaGraphWrapper captures forward/backward on MCore's *shared capture stream*
# (megatron.core.full_cuda_graph.get_shared_capture_stream()). During the captured backward, autograd
# syncs the stale AccumulateGrad node's stream (legacy) with the capturing stream -> the legacy stream
# would depend on a capturing stream -> cudaErrorStreamCaptureImplicit. The UserWarning is the tell.
#
# MCore 0.19 tries to call torch.autograd.graph.set_override_stale_capture_stream(True) before capture;
# on builds without it (pytorch/pytorch#180090) it logs
#   "torch.autograd.graph.set_override_stale_capture_stream is not available in this PyTorch version ..."
# - check your log for that line.
#
# Two fixes
# ---------
# 1. Use a PyTorch build that has set_override_stale_capture_stream (pytorch#180090). Nothing else changes.
# 2. With your current torch 2.11: create the model, construct DDP/optimizer and run *every* step on the
#    shared capture stream, so the AccumulateGrad nodes are created on the stream that later captures.
#    (Megatron-LM 0.19's own training.py already initialises DDP on this stream for
#    cuda_graph_impl="full_iteration"; custom loops must do it themselves.) On an H200 with torch 2.11 this
#    made full_iteration capture and replay (33.0 -> 1.71 ms/step on a tiny dense proxy, identical loss),
#    where the default-stream variant failed to capture.
#    Don't use a fresh torch.cuda.Stream() for init: it must be the *same* stream the wrapper captures on.
#
# (Unrelated but similar-looking: capture failures right after checkpoint load, Megatron-LM#3871,
#  were fixed by upgrading MCore.)

import torch

from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig
from megatron.core.full_cuda_graph import FullCudaGraphWrapper, get_shared_capture_stream
from megatron.core.optimizer import OptimizerConfig, get_megatron_optimizer
from megatron.core.pipeline_parallel import get_forward_backward_func

from my_project.setup import build_gpt_model, forward_step, init_distributed, train_iterator  # your code


def main():
    init_distributed()                            # torch.cuda.set_device(local_rank) + initialize_model_parallel
    if not hasattr(torch.autograd.graph, "set_override_stale_capture_stream"):
        print("torch lacks set_override_stale_capture_stream (pytorch#180090): running on the capture stream")

    cap = get_shared_capture_stream()             # after set_device: one stream per process
    cap.wait_stream(torch.cuda.current_stream())

    with torch.cuda.stream(cap):
        model = build_gpt_model()                 # TransformerConfig(..., cuda_graph_impl="full_iteration",
                                                  #   cuda_graph_modules=[], use_te_rng_tracker=True)
        ddp_config = DistributedDataParallelConfig(
            use_distributed_optimizer=True, overlap_grad_reduce=True, overlap_param_gather=True
        )
        model = DistributedDataParallel(model.config, ddp_config, model)   # hooks -> AccumulateGrad on `cap`
        optimizer = get_megatron_optimizer(
            OptimizerConfig(optimizer="adam", lr=1e-4, bf16=True, use_distributed_optimizer=True), [model]
        )

        fwd_bwd = FullCudaGraphWrapper(get_forward_backward_func(), cuda_graph_warmup_steps=3)

        for it in range(100):                     # warmup steps, the capture step and replays: all on `cap`
            optimizer.zero_grad()
            model.zero_grad_buffer()
            losses = fwd_bwd(
                forward_step_func=forward_step,
                data_iterator=train_iterator,
                model=[model],
                num_microbatches=4,
                seq_length=4096,
                micro_batch_size=1,
                forward_only=False,
            )
            optimizer.step()

    torch.cuda.current_stream().wait_stream(cap)


if __name__ == "__main__":
    main()
