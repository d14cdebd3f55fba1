# FSDP2 (torch.distributed.fsdp.fully_shard) for a ~13B decoder on 16 GPUs (2 nodes x 8).
#
# Rule of thumb: shard every transformer block as its own FSDP unit with
# reshard_after_forward=True (the default for non-root modules), then shard the root.
# Only move a block to False (or an int) if the memory report shows headroom.
#
# What the flag trades (per FSDP unit):
#   True  -> params are freed after forward and all-gathered again in backward
#            (ZeRO-3-like): lowest memory, one extra all-gather per block per step.
#   False -> the unsharded params stay in memory from forward until that block's backward
#            (ZeRO-2-like): no backward all-gather, so less communication, but every block's
#            full bf16 weights are held at the forward/backward boundary.
#   int   -> after forward, reshard to a smaller group (e.g. 8 = one node), so the backward
#            all-gather stays on NVLink. Memory sits between True and False.
#
# Rough numbers for 13B with AdamW, bf16 compute, fp32 sharded params/grads/optimizer:
#   sharded state: 13e9 * (4 param + 4 grad + 8 Adam) B / 16 GPUs ~= 13 GB per GPU
#   reshard_after_forward=False on every block keeps ~13e9 * 2 B ~= 26 GB of unsharded bf16
#   weights alive at the peak, on top of activations. That only fits on 80 GB cards with
#   short sequences / checkpointing. With True you hold only the block being computed plus
#   the prefetched next one (~2 x 0.65 GB for a 40-layer model).
# So: start with True; if max_memory_allocated leaves >30 GB free, try
# reshard_after_forward=8 (intra-node) first, then False, and keep whichever is faster.

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, reshard_blocks=True):
    world = dist.get_world_size()                      # 16
    mesh = init_device_mesh("cuda", (world,))          # 1-D mesh = plain FSDP over all 16
    # Alternative for 2 nodes: HSDP, replicate across nodes, shard within the node:
    # mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 1) every transformer block is its own unit -> one all-gather / reduce-scatter per block,
    #    overlapped with the neighbouring block's compute.
    for block in model.layers:                         # adapt: model.model.layers, model.blocks, ...
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=reshard_blocks)

    # 2) then the root: groups the leftovers (embeddings, final norm, lm_head).
    #    Leave reshard_after_forward at its default (None): False for the root, because its
    #    params are needed right away when backward starts.
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


# Order matters: build (or meta-init + load) the model, call shard_model(), and only then
# create the optimizer from model.parameters(), which are now DTensors:
#
#   model = shard_model(build_model())
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
#
# Call model(inputs), not model.forward(inputs), so the pre-forward all-gather hooks run.
#
# Optional, usually helpful at this size:
#   * activation checkpointing on each block (apply before fully_shard) if activations dominate;
#   * tied embeddings: make sure the tied weight lives in one unit (the root) so it isn't
#     sharded twice;
#   * check torch.cuda.max_memory_allocated() after a few steps before loosening resharding.
