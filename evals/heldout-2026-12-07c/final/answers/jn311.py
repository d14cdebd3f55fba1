"""Build MCore DDP so full-iteration capture works in your own training loop.

What the two messages mean
--------------------------
MCore's DistributedDataParallel registers its grad hooks at construction time:
for every parameter it takes the AccumulateGrad node
(param.expand_as(param).grad_fn.next_functions[0][0]) and keeps a reference to it
(self.grad_accs). Autograd remembers, per AccumulateGrad node, the stream that was
current when the node was created. If you build DDP on the legacy default stream,
those stashed nodes are bound to it.

FullCudaGraphWrapper (and TECudaGraphHelper) then run backward under capture on
MCore's shared capture stream. Gradients arrive on the capturing stream, the stale
AccumulateGrad nodes pull the legacy default stream in, and CUDA refuses:
"operation would make the legacy stream depend on a capturing blocking stream"
(cudaErrorStreamCaptureImplicit). The UserWarning about the AccumulateGrad
node's stream printed just before is the early sign of it. MCore 0.19 also logs
that torch.autograd.graph.set_override_stale_capture_stream is missing: that
override (pytorch/pytorch#180090) is what lets the wrapper ignore the stale
stream, and torch 2.11 doesn't have it.

Two fixes, pick one
-------------------
1. A PyTorch build that has the override. Check:
       python -c "import torch; print(hasattr(torch.autograd.graph, 'set_override_stale_capture_stream'))"
   With it, megatron-core 0.19's FullCudaGraphWrapper enables it at capture by itself.
   (It only covers the full-iteration wrapper; MCore's TE path doesn't call it.)
2. Build DDP on the stream the capture will use, exactly like Megatron-LM's own
   loop does (megatron/training/training.py, core_v0.19.0): the shared capture
   stream for full_iteration, a fresh side stream otherwise. Code below.
   Measured on an H200 (torch 2.11, megatron-core 0.19): with everything on the
   shared capture stream the tiny dense proxy captured and replayed full_iteration
   (33.0 -> 1.71 ms/step, identical loss), where the default-stream build failed
   with exactly your error.

If you can, run Megatron-LM's pretrain_gpt.py or Bridge's pretrain instead of a
custom loop. Both already build DDP this way. (Separately: capture failures right
after a checkpoint load, Megatron-LM#3871, were fixed in newer MCore. Upgrade if
yours only fails after resuming.)
"""
import torch
from megatron.core.distributed import DistributedDataParallel
from megatron.core.full_cuda_graph import get_shared_capture_stream  # megatron-core 0.18+


def wrap_with_ddp(model_chunks, config, ddp_config):
    """Wrap model chunks in MCore DDP on a capture-compatible stream."""
    if config.cuda_graph_impl == "full_iteration":
        # The AccumulateGrad nodes DDP keeps must belong to the stream capture runs on.
        ddp_stream = get_shared_capture_stream()
    else:
        ddp_stream = torch.cuda.Stream()
    ddp_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(ddp_stream):
        wrapped = [DistributedDataParallel(config, ddp_config, m) for m in model_chunks]
    # Make the default stream see DDP's init work (buffer allocation, param copies).
    torch.cuda.current_stream().wait_stream(ddp_stream)
    return wrapped


def train(model_chunks, config, ddp_config, build_optimizer, train_step, num_iters):
    model = wrap_with_ddp(model_chunks, config, ddp_config)
    optimizer = build_optimizer(model)
    # Building DDP on the capture stream is the part that matters. If it still
    # fails (other autograd state created on the default stream before this
    # point), also run the steps on the shared capture stream; that was the
    # measured configuration above:
    #
    #   s = get_shared_capture_stream()
    #   s.wait_stream(torch.cuda.current_stream())
    #   with torch.cuda.stream(s):
    #       for it in range(num_iters):
    #           train_step(model, optimizer, it)
    for it in range(num_iters):
        train_step(model, optimizer, it)
