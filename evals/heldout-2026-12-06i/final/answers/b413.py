"""fsdp2_wrap.py: FSDP2 (``fully_shard``) setup for a ~13B decoder on 16 GPUs.

reshard_after_forward: True or False?
-------------------------------------
``reshard_after_forward`` decides what happens to a block's *unsharded* (all-gathered)
parameters between its forward and its backward:

* ``True``: free them after forward and all-gather again in backward. Memory-lean
  (only the block currently running holds full weights). Costs one extra all-gather
  per block per step. This is the default for non-root modules.
* ``False``: keep them gathered from forward until backward. No second all-gather,
  so it's faster, but every block's full bf16 weights stay resident during the step.
  For 13B that's ~13e9 x 2 B ≈ 26 GB extra per GPU on top of the sharded state.
* ``int`` (e.g. ``8``): after forward, reshard only to that smaller world (a divisor
  of the shard size, typically the GPUs per node). Backward then all-gathers over
  NVLink inside the node instead of across the network. Memory cost is in between.

Sizing for 13B on 16 GPUs (bf16 compute, fp32 sharded params, fp32 grads, Adam):
    16 B/param x 13e9 ≈ 208 GB total sharded state → ~13 GB per GPU,
    plus activations, plus the gathered weights of whichever blocks are unsharded.
So:
  - Start with ``True`` on the blocks. It fits comfortably, and the backward
    all-gathers overlap with compute when blocks are wrapped one by one.
  - If profiling shows exposed all-gathers in backward and you have ~30 GB headroom
    on an 80 GB card, try ``False``. The main memory cost is activations, so check
    at your real seq length / micro-batch.
  - Two nodes with a slower inter-node link: ``reshard_after_forward=8`` is often
    the best trade-off. Or use HSDP (2-D mesh: replicate across nodes, shard within).
  - Leave the root at its default. With ``None`` FSDP sets it to ``False`` for the
    root, because the root's params are needed as soon as backward starts.

How to wrap
-----------
Call ``fully_shard`` **bottom-up**: every transformer block first, then the root.
Each call makes one communication group (one all-gather / one reduce-scatter),
and the root call picks up whatever is left (embeddings, final norm, LM head).
Calling it only on the root gives one giant all-gather with no overlap and no
per-layer memory savings.
"""

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, *, reshard=True, hsdp=False) -> torch.nn.Module:
    world = dist.get_world_size()              # 16
    if hsdp:
        # (replicate across 2 nodes, shard across the 8 GPUs of a node)
        mesh = init_device_mesh("cuda", (world // 8, 8), mesh_dim_names=("replicate", "shard"))
    else:
        mesh = init_device_mesh("cuda", (world,), mesh_dim_names=("shard",))

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 1) each transformer block is its own FSDP group (adapt `model.layers` to your model)
    for block in model.layers:
        fully_shard(block, mesh=mesh, reshard_after_forward=reshard, mp_policy=mp)

    # 2) then the root: embeddings / final norm / output head; reshard_after_forward=None → False for root
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


# Usage (after dist.init_process_group and model creation, e.g. on the meta device + init):
#   model = shard_model(model, reshard=True)          # memory-lean default
#   model = shard_model(model, reshard=8)             # 2 nodes: backward all-gather stays intra-node
#   model = shard_model(model, reshard=False)         # fastest, ~+26 GB/GPU for 13B
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4)   # build the optimizer AFTER sharding (DTensor params)
