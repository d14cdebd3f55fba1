#!/usr/bin/env python
"""train_entry.py - torchrun entry point for full-iteration CUDA graphs on torch 2.11.

Context: capture fails with
  torch.AcceleratorError: CUDA error: operation would make the legacy stream depend on
  a capturing blocking stream  (cudaErrorStreamCaptureImplicit)
preceded by
  UserWarning: The AccumulateGrad node's stream does not match the stream of the node
  that produced the incoming gradient

Cause: the backward pass runs on the legacy default stream while FullCudaGraphWrapper
captures on MCore's shared capture stream, so autograd makes the legacy stream wait on
the capturing one. megatron-core 0.19 would normally call
torch.autograd.graph.set_override_stale_capture_stream(True) to tolerate this, but that
API (pytorch/pytorch#180090) is not in torch 2.11.

Workaround used here: run the training iterations - eager warmup, capture and replay -
on the shared capture stream, so forward and backward are issued on the same stream the
graph is captured on. Model construction and DDP wrapping are one-time setup that never
runs inside the capture, so they stay on the default stream; only the steps matter.

Run:  torchrun --nproc_per_node 8 train_entry.py --config my_run.yaml
"""

import argparse
import os

import torch

from megatron.core.full_cuda_graph import get_shared_capture_stream

from my_project.setup import (  # your existing helpers
    build_model_and_ddp,
    build_optimizer,
    build_data_iterator,
    load_config,
    train_step,
)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    args = p.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    torch.distributed.init_process_group("nccl")

    cfg = load_config(args.config)
    assert cfg.model.cuda_graph_impl == "full_iteration"

    # one-time setup on the default stream
    model = build_model_and_ddp(cfg)          # GPTModel + MCore DistributedDataParallel
    optimizer, scheduler = build_optimizer(cfg, model)
    data_iter = build_data_iterator(cfg)

    if not hasattr(torch.autograd.graph, "set_override_stale_capture_stream"):
        print("torch lacks set_override_stale_capture_stream; running steps on the capture stream")

    cap = get_shared_capture_stream()
    cap.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(cap):
        for it in range(cfg.train.train_iters):
            loss = train_step(model, optimizer, scheduler, data_iter)   # FullCudaGraphWrapper inside
            if it % cfg.logger.log_interval == 0 and torch.distributed.get_rank() == 0:
                print(f"iter {it} loss {loss:.4f}")
    torch.cuda.current_stream().wait_stream(cap)

    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()

# Preferred long-term fix: a PyTorch build that includes pytorch/pytorch#180090; then
# megatron-core enables the override itself and this wrapper is unnecessary.
