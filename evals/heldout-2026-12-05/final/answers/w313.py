"""capture_stream.py - keep MCore DDP and the training steps on the CUDA-graph capture stream.

Why this exists
---------------
Full-iteration capture on megatron-core 0.19 + PyTorch 2.11 + MCore DDP in our own loop died with

    UserWarning: The AccumulateGrad node's stream does not match the stream of the node that
    produced the incoming gradient ...
    torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on a
    capturing blocking stream   (cudaErrorStreamCaptureImplicit)

Cause: MCore's DistributedDataParallel registers its grad hooks at construction and keeps
(stashes) every parameter's AccumulateGrad node. An autograd node remembers the stream that was
current when it was created - here the legacy default stream. FullCudaGraphWrapper (and
TECudaGraphHelper) capture on MCore's shared capture stream, so during the captured backward the
stale AccumulateGrad nodes make the legacy stream wait on the capturing stream, which CUDA
forbids. The ``set_override_stale_capture_stream is not available in this PyTorch version``
warning that MCore 0.19 prints at capture is the same story: PyTorch builds with
pytorch/pytorch#180090 let the wrapper override the stale stream; torch 2.11 does not have it.

Two ways out:
  1. a PyTorch build that has torch.autograd.graph.set_override_stale_capture_stream, or
  2. build the model, wrap it in DDP and run every step with MCore's shared capture stream
     current, which is what this module does. Megatron-LM's own training.py builds DDP on the
     shared capture stream for full_iteration for the same reason.

Measured on one H200 (torch 2.11, megatron-core 0.19.2): with the default stream full_iteration
capture failed; with everything on the shared capture stream it captured and replayed
(33.0 -> 1.71 ms/step on the tiny dense proxy, loss identical to eager).

Unrelated but similar-looking: capture failures right after a checkpoint load were an MCore bug
(Megatron-LM#3871) fixed by upgrading.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Callable, Iterator, List

import torch

from megatron.core.distributed import DistributedDataParallel
from megatron.core.full_cuda_graph import get_shared_capture_stream  # megatron-core >= 0.18

log = logging.getLogger(__name__)


def has_stale_stream_override() -> bool:
    """True when this PyTorch can override stale AccumulateGrad streams (pytorch#180090)."""
    return hasattr(torch.autograd.graph, "set_override_stale_capture_stream")


@contextlib.contextmanager
def on_capture_stream() -> Iterator[torch.cuda.Stream]:
    """Run the body with MCore's shared capture stream as the current stream.

    Call after torch.cuda.set_device(). The stream is the same object FullCudaGraphWrapper
    captures on, so nodes created in the body are bound to the capturing stream, not the
    legacy default stream.
    """
    stream = get_shared_capture_stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        yield stream
    torch.cuda.current_stream().wait_stream(stream)


def build_ddp_model(
    build_chunks: Callable[[], List[torch.nn.Module]],
    transformer_config,
    ddp_config,
) -> List[DistributedDataParallel]:
    """Build the model chunks and wrap them in MCore DDP on the shared capture stream."""
    if not has_stale_stream_override():
        log.info("torch %s has no set_override_stale_capture_stream; building DDP on the "
                 "shared capture stream", torch.__version__)
    with on_capture_stream():
        chunks = build_chunks()
        model = [DistributedDataParallel(transformer_config, ddp_config, m) for m in chunks]
    return model


def train(model, optimizer, train_step, data_iterator, num_iters: int) -> None:
    """Run every step on the capture stream too (warmup, capture and replays alike)."""
    with on_capture_stream():
        for _ in range(num_iters):
            train_step(model, optimizer, data_iterator)


# Usage in our loop (full_iteration, megatron-core 0.19):
#
#   config.cuda_graph_impl = "full_iteration"
#   config.cuda_graph_modules = []
#   model = build_ddp_model(lambda: [GPTModel(config, spec, ...)], config, ddp_config)
#   optimizer = get_megatron_optimizer(opt_config, model)
#   train(model, optimizer, train_step, data_iterator, num_iters=200)
#
# Expected log: "Capture CUDA graph for training!!!" then "CUDA graph capture done for
# training!!!", and no cudaErrorStreamCaptureImplicit. The set_override warning may still be
# printed on torch 2.11; on its own it is not a failure.
