# What's going on
# ---------------
# The UserWarning right before the crash is the real clue. MCore's DistributedDataParallel
# registers its grad hooks at construction time and keeps a reference to every parameter's
# AccumulateGrad node. An autograd node remembers the stream that was current when it was
# created -- in your loop that is the legacy default stream, because DDP was built there.
#
# The full-iteration wrapper (FullCudaGraphWrapper) captures forward+backward on MCore's shared
# capture stream. During the captured backward, autograd has to hand each gradient to that
# stale AccumulateGrad node on the legacy stream, i.e. make the legacy stream wait on the
# capturing stream -> cudaErrorStreamCaptureImplicit ("operation would make the legacy stream
# depend on a capturing blocking stream"). Any "operation failed due to a previous error during
# capture" that follows is just fallout.
#
# MCore 0.19 knows about this: at capture time FullCudaGraphWrapper calls
# torch.autograd.graph.set_override_stale_capture_stream(True) if PyTorch has it
# (pytorch/pytorch#180090); torch 2.11 doesn't, so you only get MCore's warning
# "...set_override_stale_capture_stream is not available in this PyTorch version..." and the
# capture fails.
#
# Two ways out
# ------------
# A) Use a PyTorch build that includes pytorch/pytorch#180090. Check:
#      python -c "import torch; print(hasattr(torch.autograd.graph, 'set_override_stale_capture_stream'))"
#    Note MCore only calls it on the full-iteration path, not for TE make_graphed_callables.
#
# B) (works on torch 2.11) Build DDP on the stream the capture will use -- exactly what
#    Megatron-LM's own training.py does on core_v0.19.0 (and Bridge via the same helper):

import torch
from megatron.core.distributed import DistributedDataParallel
from megatron.core.full_cuda_graph import FullCudaGraphWrapper, get_shared_capture_stream


def wrap_ddp(model_chunks, transformer_config, ddp_config):
    if transformer_config.cuda_graph_impl == "full_iteration":
        # AccumulateGrad nodes created here will belong to the capture stream.
        ddp_stream = get_shared_capture_stream()
    else:
        # TE-scoped graphs capture on their own stream; a fresh side stream (not the legacy
        # default) is what Megatron-LM uses there.
        ddp_stream = torch.cuda.Stream()
    ddp_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(ddp_stream):
        model_chunks = [
            DistributedDataParallel(transformer_config, ddp_config, m) for m in model_chunks
        ]
    torch.cuda.current_stream().wait_stream(ddp_stream)
    return model_chunks


# If you still hit it (e.g. extra autograd state created elsewhere on the default stream), the
# belt-and-braces version also measured to work on an H200 with torch 2.11: build the model,
# init DDP *and* run every training step under the shared capture stream:
#
#   stream = get_shared_capture_stream()
#   with torch.cuda.stream(stream):
#       model = build_model(...)
#       model = wrap_ddp(model, cfg, ddp_cfg)
#       forward_backward = FullCudaGraphWrapper(get_forward_backward_func(), cuda_graph_warmup_steps=3)
#       for it in range(train_iters):
#           train_step(...)
#
# There, full_iteration captured and replayed on the tiny dense proxy (33.0 -> 1.71 ms/step,
# loss identical to eager), where the default-stream version failed with your exact error.
#
# Notes
# - You don't need any of this with Megatron-LM's pretrain_gpt.py or Megatron Bridge's
#   pretrain(): both already construct DDP under the right stream on 0.19. It only bites
#   hand-written loops around MCore.
# - Don't "fix" it by switching graph impls: the TE path (make_graphed_callables) hits the same
#   stale-node error when DDP was built on the default stream.
# - If the capture only fails after resuming from a checkpoint, that was a separate MCore bug
#   (Megatron-LM#3871) -- upgrade MCore.
