"""FSDP2 (torch.distributed.fsdp.fully_shard) wrapping for a ~13B decoder on 16 GPUs.

Short answer
------------
* Wrap bottom-up: call fully_shard on every transformer block, then on the root model.
  Each call makes one communication group (one all-gather / reduce-scatter per block);
  the root call picks up whatever is left (embeddings, final norm, lm_head).
* reshard_after_forward=True (the default for non-root modules) frees each block's
  gathered params after forward and re-all-gathers them in backward: lowest memory,
  one extra all-gather per block per step.
  reshard_after_forward=False keeps them gathered from forward to backward: faster
  (no backward all-gather), but each block's full bf16 params stay resident
  (13B x 2 B ~ 26 GB extra at the peak).
  An int (e.g. 8 = GPUs per node) reshards to an intra-node group after forward, so
  the backward all-gather stays on NVLink: the middle ground for 2 x 8 GPUs.
* For 13B on 16 x 80 GB: sharded state is ~13B x 16 B / 16 ~ 13 GB per GPU, so start with
  True for the blocks (root is set to False automatically), measure peak memory, then try
  reshard_after_forward=8 or False if you have headroom and the all-gathers show up in the
  profile. Pick by memory headroom, not by default.
"""
from __future__ import annotations

import torch
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(
    model: nn.Module,
    blocks: list[nn.Module],
    *,
    reshard_after_forward: bool | int = True,
    world_size: int = 16,
) -> nn.Module:
    mesh = init_device_mesh("cuda", (world_size,))
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 1) every transformer block first (bottom-up)...
    for block in blocks:
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=reshard_after_forward)
    # 2) ...then the root, which owns the remaining params (embeddings, norm, head).
    #    Leaving reshard_after_forward unset lets FSDP treat the root as False (it is needed
    #    again right at the start of backward).
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


# usage (after torch.distributed.init_process_group and building the model on meta/CPU):
#   model = shard_model(model, list(model.layers), reshard_after_forward=True)
#   model.to_empty(device="cuda"); init weights / load a DCP checkpoint
#   optim = torch.optim.AdamW(model.parameters(), lr=...)   # build the optimizer AFTER sharding
#
# Combine with activation checkpointing per block if activations dominate; that is
# independent of reshard_after_forward.
