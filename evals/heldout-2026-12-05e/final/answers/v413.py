"""shard_13b.py: FSDP2 (fully_shard) wrapping for a ~13B decoder on 16 GPUs (2 nodes x 8).

Answer in short
---------------
* Wrap bottom-up: call ``fully_shard`` on every transformer block, then once on the root
  model. Each block becomes its own all-gather / reduce-scatter group, so only a block or two
  is unsharded at a time and communication overlaps compute. Don't shard only the root: that
  makes one group with the full 13B parameters unsharded at once.
* ``reshard_after_forward``:
    - ``True`` frees a block's unsharded parameters after its forward and all-gathers them
      again in backward. It uses less memory and costs one extra all-gather per block. This is
      the default for non-root modules.
    - ``False`` keeps them unsharded from forward to backward, so there is no second
      all-gather (faster) but all blocks' full parameters stay resident. For 13B in bf16 that
      is ~26 GB per GPU on top of activations.
    - an ``int`` (e.g. 8 = GPUs per node) reshards to a smaller group after forward, so the
      backward all-gather stays intra-node over NVLink. Memory is between True and False.
  Choose by memory headroom. For 13B on 16x80 GB, start with ``True`` (sharded fp32 params +
  grads + Adam = 16 B/param * 13e9 / 16 ~= 13 GB/GPU, plus activations). Try ``8`` or ``False``
  if profiling shows free memory and exposed all-gathers in backward. Leave the root at its
  default (``None`` -> ``False`` for the root), because backward needs it right away.
"""

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, blocks, reshard_after_forward=True) -> torch.nn.Module:
    """Apply FSDP2 per block, then on the root. ``blocks`` = e.g. ``model.layers``."""
    assert dist.is_initialized(), "call dist.init_process_group (torchrun) first"
    world = dist.get_world_size()
    assert world == 16, f"expected 16 ranks, got {world}"
    mesh = init_device_mesh("cuda", (world,))
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    assert isinstance(reshard_after_forward, bool) or (
        isinstance(reshard_after_forward, int) and 1 < reshard_after_forward < world
        and world % reshard_after_forward == 0
    ), "int reshard_after_forward must be a non-trivial divisor of the shard size (e.g. 8)"

    for block in blocks:                       # 1) every transformer block
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=reshard_after_forward)
    fully_shard(model, mesh=mesh, mp_policy=mp)  # 2) root last: embeddings, final norm, head
    return model


# Usage (torchrun --nnodes 2 --nproc-per-node 8 train.py):
#   dist.init_process_group("nccl"); torch.cuda.set_device(local_rank)
#   with torch.device("meta"): model = MyModel(cfg)        # optional: avoid 13B on CPU per rank
#   shard_model(model, model.layers, reshard_after_forward=True)
#   model.to_empty(device="cuda"); model.init_weights()     # if built on meta
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4)  # create AFTER sharding (DTensor params)
# Optional: model.layers[i].set_modules_to_forward_prefetch([model.layers[i + 1]]) for explicit
# prefetch; activation checkpointing per block (apply before fully_shard) if activations dominate.
