# Why it fails
# ------------
# MCore DDP registers its grad-accumulation hooks at construction time: for every
# param it builds the AccumulateGrad node (param.expand_as(param).grad_fn
# .next_functions[0][0]) and stashes it in self.grad_accs. Autograd binds each
# AccumulateGrad node to the stream that was current when it was created - here
# the legacy default stream.
#
# FullCudaGraphWrapper (and TECudaGraphHelper) capture on MCore's *shared capture
# stream* (megatron.core.full_cuda_graph.get_shared_capture_stream()). During the
# captured backward, autograd sees that the AccumulateGrad node's stream differs
# from the producer's stream (your "AccumulateGrad node's stream does not match"
# UserWarning) and inserts a sync that makes the legacy stream wait on the
# capturing stream -> cudaErrorStreamCaptureImplicit ("operation would make the
# legacy stream depend on a capturing blocking stream").
#
# megatron-core 0.19 handles this by calling
# torch.autograd.graph.set_override_stale_capture_stream(True) before capture -
# but only if your PyTorch has it (pytorch/pytorch#180090). On a build without it,
# the wrapper logs "set_override_stale_capture_stream is not available in this
# PyTorch version ..." right before the capture, which is what you're seeing.
#
# Fixes, in order of preference
# -----------------------------
# 1. Use a PyTorch build that includes pytorch/pytorch#180090; nothing else to change.
# 2. Otherwise: make the capture stream the stream everything is *born* on. Build the
#    model, wrap it in DDP, build the optimizer and run every train step inside
#    torch.cuda.stream(get_shared_capture_stream()). Then the AccumulateGrad nodes
#    are bound to the same stream that captures, and nothing touches the legacy
#    stream during capture. (Reported on an H200 / torch 2.11 tiny dense proxy:
#    default stream -> capture fails; shared stream -> full_iteration captures and
#    replays, 33.0 -> 1.71 ms/step, identical loss; results file
#    2026-12-02-training-h200-dense-tiny-same-stream.json.)
#
# Sketch for a custom MCore loop (megatron-core 0.19):

import torch
from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig
from megatron.core.full_cuda_graph import FullCudaGraphWrapper, get_shared_capture_stream
from megatron.core.optimizer import OptimizerConfig, get_megatron_optimizer
from megatron.core.pipeline_parallel import get_forward_backward_func


def train(local_rank, build_gpt_model, transformer_config, data_iterator, forward_step, iters):
    torch.cuda.set_device(local_rank)                 # select the device *first*
    stream = get_shared_capture_stream()              # same object the wrapper captures on
    stream.wait_stream(torch.cuda.current_stream())   # order anything already queued

    with torch.cuda.stream(stream):
        model = build_gpt_model(transformer_config).cuda()
        ddp_config = DistributedDataParallelConfig(
            grad_reduce_in_fp32=True,
            overlap_grad_reduce=True,
            use_distributed_optimizer=True,
        )
        # DDP init creates (and stashes) the AccumulateGrad nodes -> now on `stream`
        model = DistributedDataParallel(transformer_config, ddp_config, model)
        optimizer = get_megatron_optimizer(
            OptimizerConfig(optimizer="adam", lr=1e-4, bf16=True, use_distributed_optimizer=True),
            [model],
        )

        fwd_bwd = FullCudaGraphWrapper(
            get_forward_backward_func(),
            cuda_graph_warmup_steps=transformer_config.cuda_graph_warmup_steps,
        )

        for it in range(iters):
            model.zero_grad_buffer()
            optimizer.zero_grad()
            losses = fwd_bwd(
                forward_step_func=forward_step,
                data_iterator=data_iterator,
                model=[model],
                num_microbatches=1,
                seq_length=transformer_config_seq_len(transformer_config),
                micro_batch_size=1,
                forward_only=False,
            )
            optimizer.step()

    torch.cuda.current_stream().wait_stream(stream)
    return losses


def transformer_config_seq_len(cfg):
    # placeholder: use your data config's sequence length
    return getattr(cfg, "seq_length", 4096)

# Notes
# - transformer_config must have cuda_graph_impl="full_iteration" (0.18+), and with
#   Megatron-LM's loop --no-check-for-nan-in-loss-and-grad (asserted there).
# - If you benchmark with this skill's harness, `skill-tools bench --capture-stream shared`
#   (alias --same-stream) runs the model, DDP and every step on the shared capture stream.
# - Capture failures that only show up after loading a checkpoint (Megatron-LM#3871) are a
#   different bug, fixed by upgrading megatron-core.
