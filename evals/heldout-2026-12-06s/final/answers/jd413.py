# fsdp2_wrap.py — FSDP2 (fully_shard) setup for a ~13B decoder on 16 GPUs (2 nodes x 8).
#
# Short answer to "reshard_after_forward=True or False?":
#   * True  -> after each block's forward its params are freed back to shards and all-gathered
#              again in backward. Lowest memory, one extra all-gather per block per step.
#   * False -> the unsharded params stay resident from forward until backward, so backward skips
#              the all-gather. Faster, but you hold the gathered (bf16) weights of every block at
#              once: ~26 GB for 13B params, on top of activations. That's ZeRO-2-like behaviour.
#   * int   -> reshard to a smaller group after forward, e.g. 8 = the GPUs of one node, so the
#              backward re-gather runs over NVLink instead of the inter-node network. Middle ground.
#
# For 13B on 16 x 80 GB: sharded model state is small (~16 bytes/param * 13e9 / 16 ≈ 13 GB/GPU with
# fp32 master params + Adam), so the decision is about activation headroom. Start with True for the
# blocks (safe), measure peak memory and step time, then try 8 (intra-node) or False if you have
# >~30 GB free at peak. Pick by measured memory headroom, not by default.
#
# Requires PyTorch >= 2.6 (fully_shard exported from torch.distributed.fsdp).

import os

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, blocks, reshard_after_forward=True):
    """Apply fully_shard bottom-up: every transformer block first, then the root."""
    world = dist.get_world_size()                       # 16
    mesh = init_device_mesh("cuda", (world,))           # 1-D mesh = plain FSDP over all 16 GPUs
    # (HSDP alternative: init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
    #  -> shard inside a node, replicate across the 2 nodes; more memory, less inter-node traffic.)

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    n = len(blocks)
    for i, block in enumerate(blocks):
        fully_shard(
            block,
            mesh=mesh,
            mp_policy=mp,
            # The last block's params are needed first in backward; keeping them gathered saves
            # one all-gather at almost no memory cost.
            reshard_after_forward=reshard_after_forward if i < n - 1 else False,
        )

    # Root last: groups the leftover params (embeddings, final norm, lm head) into one unit.
    # No reshard_after_forward needed: FSDP treats the root as False by default, since its params
    # are needed again as soon as backward starts.
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

    model = build_model()                               # your 13B model; if built on meta, call
    #                                                     model.to_empty(device="cuda") + init weights after sharding
    shard_model(model, model.layers, reshard_after_forward=True)   # or 8, or False — see above

    # Optimizer AFTER sharding, on the DTensor parameters.
    optim = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)

    for batch in loader():
        loss = model(**batch).loss                      # call model(...), not model.forward(...)
        loss.backward()
        optim.step()
        optim.zero_grad(set_to_none=True)


# torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint $HEAD:29500 fsdp2_wrap.py
