"""FSDP2 wrapping for a ~13B decoder on 16 GPUs (2 nodes x 8).

reshard_after_forward, short version
------------------------------------
* True  -> after a block's forward, its gathered (unsharded) params are freed; backward
           all-gathers them again. Lowest memory, one extra all-gather per block per step.
* False -> the unsharded params stay resident from forward until backward; no second
           all-gather. Faster, but at peak you hold the *whole* model unsharded:
           13B x 2 bytes (bf16) = ~26 GB per GPU extra, on top of the sharded states
           (fp32 params + grads + Adam: 13B x 16 B / 16 GPUs = ~13 GB) and activations.
* int   -> reshard to a smaller group after forward (e.g. 8 = intra-node), so the backward
           all-gather stays on NVLink. Memory sits in between: 1/8 of the params per GPU
           instead of 1/16.

Pick by memory headroom: start with True for the blocks (or 8 on 2 nodes if you have
headroom and the inter-node all-gather shows up in the profile), and leave the root at
its default. For the root, FSDP2 uses False when reshard_after_forward is None
(the default in recent PyTorch), since backward needs the root's params immediately.
Then measure: if peak memory leaves >20-25 GB free, try False on the blocks and compare
step time.

No CUDA-graph settings are involved here. This is purely FSDP sharding.
"""

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

try:  # PyTorch >= 2.6
    from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
except ImportError:  # 2.4 / 2.5
    from torch.distributed._composable.fsdp import fully_shard, MixedPrecisionPolicy


def shard_model(model: torch.nn.Module, blocks_reshard=True) -> torch.nn.Module:
    world = dist.get_world_size()  # 16
    mesh = init_device_mesh("cuda", (world,), mesh_dim_names=("dp",))
    # Alternative for 2 nodes: HSDP, replicate across nodes, shard within the node:
    #   mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
    # That keeps all-gathers on NVLink; the cost is 2x the per-GPU state of full sharding.

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 1) Each transformer block is its own FSDP unit (one all-gather / reduce-scatter group).
    #    Wrapping per block is what lets FSDP free one block's params while the next runs.
    for block in model.layers:  # adapt: model.model.layers for HF-style models
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=blocks_reshard)

    # 2) Then the root: this picks up the remaining params (embeddings, final norm, LM head)
    #    and sets up the root-level hooks. Apply it last.
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


# Usage
#   model = build_model_on_meta_or_cpu()
#   model = shard_model(model, blocks_reshard=True)     # or 8 to reshard intra-node only
#   model.to_empty(device="cuda"); init / load sharded weights (DCP)
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)  # after fully_shard: DTensor params
#
# Notes
# * Build the optimizer after fully_shard so it sees the sharded DTensor parameters.
# * Activation checkpointing per block (torch.utils.checkpoint / checkpoint_wrapper) combines
#   well with this if activations, not params, dominate memory.
# * Check peak memory with torch.cuda.max_memory_allocated() for both settings; the decision
#   is headroom vs one extra all-gather per block in backward.
