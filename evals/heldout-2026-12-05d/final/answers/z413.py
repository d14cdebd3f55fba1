"""FSDP2 wrapping + reshard_after_forward A/B harness for a ~13B decoder on 16 GPUs (2 x 8).

Answer first
------------
* Wrap **bottom-up**: call ``fully_shard`` on every transformer block, then on the root model.
  Each call makes one communication group from the parameters not already claimed by a
  sub-module, so per-block groups give per-block all-gather/reduce-scatter and overlap.
  Calling it only on the root would all-gather all 13B parameters at once.
* ``reshard_after_forward``:
    - ``True``: after a block's forward, free its unsharded params and all-gather them again in
      backward. Least memory, one extra all-gather per block per step.
    - ``False``: keep the unsharded params from forward until backward. No backward all-gather,
      faster, but up to the whole unsharded model stays resident at the forward/backward turn.
    - ``int`` (e.g. 8): after forward, reshard onto an 8-GPU subgroup (intra-node), so the
      backward all-gather stays on NVLink. Memory cost is in between.
    - ``None`` (default): ``True`` for blocks, ``False`` for the root, which is what you usually
      want for the root since backward starts there.
* Decision for 13B on 16 GPUs: mixed-precision Adam state is ~16 B/param = ~208 GB, and sharded
  16 ways that's ~13 GB per GPU. The bf16 unsharded parameters are ~26 GB. With
  ``reshard_after_forward=False`` nearly all 26 GB is resident at the forward/backward turn, on
  top of activations. So: start with **True** (the default for blocks). Try ``8`` if the
  backward all-gather shows up in the profile and the step still fits. Use ``False`` only when the
  A/B below shows the memory headroom. Pick by measured peak memory vs step time, not by habit.

Run
---
    torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint $HEAD:29500 \
        fsdp_reshard_ab.py --reshard true
    # repeat with --reshard false and --reshard 8; compare the printed peak GB and ms/step

Replace ``build_model`` with your own model constructor. Everything else is plain PyTorch
(>= 2.6, ``torch.distributed.fsdp.fully_shard``).
"""

from __future__ import annotations

import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def build_model() -> torch.nn.Module:
    """Return your 13B model on the meta device (no memory until sharded)."""
    from transformers import AutoConfig, AutoModelForCausalLM  # example; use your own

    cfg = AutoConfig.from_pretrained(os.environ.get("MODEL_CONFIG", "meta-llama/Llama-2-13b-hf"))
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.float32)


def transformer_blocks(model: torch.nn.Module):
    """The repeated blocks to shard individually (adapt the attribute path to your model)."""
    return model.model.layers


def parse_reshard(v: str):
    return {"true": True, "false": False, "none": None}.get(v.lower(), None) if not v.isdigit() else int(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reshard", default="true", help="true | false | none | <int subgroup size, e.g. 8>")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--mbs", type=int, default=1)
    args = ap.parse_args()

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    world = dist.get_world_size()
    mesh = init_device_mesh("cuda", (world,))            # 1-D mesh: full sharding over 16 GPUs

    reshard = parse_reshard(args.reshard)
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    model = build_model()

    # 1) every block first ...
    for block in transformer_blocks(model):
        fully_shard(block, mesh=mesh, reshard_after_forward=reshard, mp_policy=mp)
    # 2) ... then the root (embeddings, final norm, lm_head). reshard_after_forward=False for the
    #    root: its params are needed first in backward anyway.
    fully_shard(model, mesh=mesh, reshard_after_forward=False, mp_policy=mp)

    model.to_empty(device="cuda")
    for m in model.modules():                            # re-init after materialising from meta
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()

    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    vocab = model.config.vocab_size

    torch.cuda.reset_peak_memory_stats()
    times = []
    for step in range(args.steps):
        x = torch.randint(0, vocab, (args.mbs, args.seq), device="cuda")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = model(input_ids=x, labels=x).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        if step >= 5:                                    # skip warm-up steps
            times.append(time.perf_counter() - t0)

    peak = torch.cuda.max_memory_allocated() / 2**30
    peak_t = torch.tensor([peak], device="cuda")
    dist.all_reduce(peak_t, op=dist.ReduceOp.MAX)
    if dist.get_rank() == 0:
        ms = 1000 * sum(times) / max(len(times), 1)
        print(f"reshard_after_forward={reshard!r}: peak {peak_t.item():.1f} GiB (max over ranks), "
              f"{ms:.0f} ms/step")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
