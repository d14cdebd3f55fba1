# FSDP2 (torch.distributed.fsdp.fully_shard) for a 13B decoder on 16 GPUs
#
# Wrapping: fully_shard() each transformer block FIRST, then the root module.
#   - every block becomes its own communication group -> its params are all-gathered just
#     before its forward and can be freed right after, and prefetch overlaps the next block.
#   - the root call picks up what's left (embeddings, final norm, lm head).
#
# reshard_after_forward:
#   True  -> after a block's forward its params are freed (sharded again) and all-gathered again
#            in backward. Lowest memory, one extra all-gather per block per step. ZeRO-3-like.
#   False -> params stay unsharded from forward until backward. Saves that all-gather (faster)
#            but holds the full params of every block through the step. ZeRO-2-like.
#   int   -> reshard to a smaller group (e.g. 8 = intra-node) after forward: middle ground, the
#            backward all-gather stays on NVLink.
#
# 13B in bf16 = ~26 GB of params unsharded. On 80 GB cards, keeping all of it gathered (False)
# on top of activations + sharded optimizer state usually doesn't fit -> use True for the
# blocks. Common trick: the root (last to run forward, first in backward) is set to False
# since it would be re-gathered immediately anyway. If you have lots of headroom (short seqs,
# activation checkpointing), try reshard_after_forward=8 (one node) and measure.
import torch
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
from torch.distributed.device_mesh import init_device_mesh


def shard_model(model: torch.nn.Module, reshard: bool | int = True):
    mesh = init_device_mesh("cuda", (16,))
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.layers:                       # e.g. model.model.layers for HF Llama
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=reshard)
    fully_shard(model, mesh=mesh, mp_policy=mp, reshard_after_forward=False)
    return model

# Optional: HSDP (shard within node, replicate across nodes) for 2x8:
#   mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
#   fully_shard(block, mesh=mesh, ...)   # 2-D mesh -> hybrid sharding
# Create the optimizer AFTER fully_shard so it sees the DTensor params.
