"""FSDP2 (``fully_shard``) for a 13B decoder on 16 GPUs: wrapping and ``reshard_after_forward``.

Short answer
------------
* Wrap bottom-up: call ``fully_shard`` on every transformer block, then once on the root
  model. Each block becomes its own all-gather / reduce-scatter group, which is what lets
  FSDP free a block's full weights after use and overlap the next block's all-gather with
  compute. Wrapping only the root gathers the whole 13B model at once -- don't.
* ``reshard_after_forward=True`` (the default for non-root modules): after a block's
  forward its unsharded weights are freed, and backward all-gathers them again.
  Lowest memory, one extra all-gather per block per step.
* ``reshard_after_forward=False``: the unsharded weights stay resident from forward to
  backward, so backward skips the re-gather. Faster, but every block's full weights are
  alive at the peak.
* ``reshard_after_forward=<int>`` (e.g. 8 = GPUs per node): after forward, keep weights
  sharded only within the node, so the backward all-gather stays on NVLink. A middle
  ground for 2 nodes x 8 GPUs.
* The root module: leave it at the default (``None`` -> FSDP treats it as ``False``),
  because its parameters are needed immediately when backward starts.

Rough memory per GPU for 13B, fp32 sharded params + bf16 compute, AdamW, 16-way sharding
----------------------------------------------------------------------------------------
    sharded params/grads/Adam m,v        : 13e9 * (4 + 4 + 8) B / 16    ~ 13 GB
    reshard_after_forward=False, extra   : all blocks' full bf16 weights ~ 26 GB
    reshard_after_forward=8, extra       : 26 GB / 8                     ~ 3.3 GB
plus activations (sequence length x micro-batch x layers; use activation checkpointing if
they dominate). So: on 80 GB GPUs with modest activations, ``False`` fits and is the
faster choice; if activations are large or you are on 40 GB cards, use ``True`` (or 8
across two nodes). Measure: try ``False`` first, drop to ``8``/``True`` if peak memory
(``torch.cuda.max_memory_allocated``) is too close to the limit.
"""

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, reshard: bool | int = True) -> torch.nn.Module:
    """Apply FSDP2 per transformer block, then to the root. Call after building the model
    (ideally on the meta device, then ``model.to_empty(device="cuda")`` + init)."""
    world = dist.get_world_size()                 # 16
    mesh = init_device_mesh("cuda", (world,))     # 1-D: plain FSDP across all 16 GPUs
    # For HSDP (replicate across the 2 nodes, shard within each) use
    # init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard")).

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 1) every block is its own FSDP unit (adapt `model.layers` to your module names)
    for block in model.layers:
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=reshard)

    # 2) root last: embeddings, final norm and output head end up in the root group
    fully_shard(model, mesh=mesh, mp_policy=mp)   # default: root keeps params after forward
    return model


# Optimizer is created AFTER sharding so it holds the sharded (DTensor) parameters:
#   model = shard_model(model, reshard=True)     # or False / 8 -- see the module docstring
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
#
# Optional: explicit prefetching when the default overlap is not enough
#   blocks = list(model.layers)
#   for prev, nxt in zip(blocks, blocks[1:]):
#       prev.set_modules_to_forward_prefetch([nxt])
