# FSDP2 (torch.distributed.fsdp.fully_shard) for a ~13B decoder on 16 GPUs (2 nodes x 8).
#
# reshard_after_forward, per fully_shard call:
#   True  -> after a block's forward its parameters are freed back to shards and all-gathered
#            again in backward. Lowest memory (ZeRO-3-like); one extra all-gather per block.
#   False -> the unsharded parameters stay in memory from forward until backward; no second
#            all-gather, faster, but every block's full parameters are resident at the end of
#            forward (for 13B in bf16 that's ~26 GB on every GPU, on top of activations).
#   int   -> reshard to a smaller group after forward (e.g. 8 = within the node): backward
#            all-gathers over NVLink only. Middle ground for multi-node.
#   None  -> default: True for non-root modules, False for the root.
#
# For 13B on 16 GPUs: start with True on the transformer blocks (the memory of keeping all
# 40 layers unsharded is rarely affordable next to activations), leave the root at its
# default, and only try 8 (intra-node) or False if memory profiling shows headroom and the
# backward all-gathers are actually exposed in the profile.
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy


def shard_model(model: torch.nn.Module, reshard: bool | int = True) -> torch.nn.Module:
    mesh = init_device_mesh("cuda", (dist.get_world_size(),))          # 1-D mesh of 16 ranks
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 1) Wrap every transformer block first (bottom-up). Each block becomes one
    #    all-gather / reduce-scatter unit, so only ~1-2 blocks are unsharded at a time.
    for block in model.layers:                 # e.g. model.model.layers for HF Llama
        fully_shard(block, mesh=mesh, reshard_after_forward=reshard, mp_policy=mp)

    # 2) Then the root: it picks up the remaining parameters (embeddings, final norm,
    #    lm_head). Leaving reshard_after_forward at its default (None -> False for the root)
    #    avoids re-gathering parameters that backward needs immediately.
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


# Usage
#   model = build_13b_model()   # ideally on the meta device, then model.to_empty(device="cuda")
#                                # and init weights after sharding
#   model = shard_model(model, reshard=True)
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4)   # build AFTER fully_shard (DTensor params)
#
# Notes
# - Apply activation checkpointing to the blocks before fully_shard if activations dominate.
# - Multi-node: consider HSDP instead, a 2-D mesh (replicate across nodes, shard within):
#     mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
#   13B with AdamW states sharded over 8 GPUs fits on 80 GB H100s and keeps all-gathers on NVLink.
# - Check peak memory with torch.cuda.max_memory_allocated() for both settings before choosing.
