"""fsdp2_wrap.py — how to shard a ~13B decoder with FSDP2 (fully_shard) on 16 GPUs.

Short version
-------------
* Call ``fully_shard`` on every transformer block first, then on the root model
  (bottom-up). Each block becomes its own communication group, so only one or two
  blocks are unsharded at a time and all-gathers overlap with compute.
* ``reshard_after_forward``:
    - ``True``  (default for the blocks): free each block's unsharded params right
      after its forward and re-all-gather them in backward. Lowest memory; costs
      one extra all-gather per block per step.
    - ``False``: keep the unsharded params from forward until backward. No second
      all-gather (faster), but every block's full params stay resident between
      forward and backward -> effectively the whole unsharded model
      (13B x 2 bytes bf16 ~= 26 GB) on every GPU at peak.
    - ``int`` (e.g. 8): reshard to a smaller group after forward, e.g. the 8 GPUs
      of one node, so the backward all-gather stays on NVLink. Middle ground on
      2 nodes x 8 GPUs.
* For 13B on 16 x 80 GB: sharded params+grads+Adam states are ~13B*16 B / 16 ~= 13 GB
  per GPU, so ``True`` leaves lots of room for activations; try ``False`` (or ``8``)
  only if profiling shows the backward all-gathers are exposed and you still have
  ~30 GB+ headroom at peak. On 40 GB cards stay with ``True``.
* Leave the root at the default (``None`` -> FSDP keeps the root unsharded after
  forward, since its params are needed immediately at the start of backward).
"""

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, reshard_after_forward=True) -> torch.nn.Module:
    # 1-D mesh over all 16 ranks = plain FSDP (ZeRO-3-style) sharding.
    # For HSDP (shard inside a node, replicate across nodes) use a 2-D mesh:
    #   init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
    mesh = init_device_mesh("cuda", (dist.get_world_size(),))

    # bf16 compute / all-gather, fp32 gradient reduction for stability.
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 2) every transformer block gets its own FSDP group  (bottom-up!)
    for block in model.layers:          # e.g. model.model.layers for HF Llama
        fully_shard(block, mesh=mesh, mp_policy=mp,
                    reshard_after_forward=reshard_after_forward)

    # 3) root last: picks up what is left (embeddings, final norm, lm_head)
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


# Usage (torchrun --nnodes 2 --nproc-per-node 8 train.py):
#   with torch.device("meta"):
#       model = MyTransformer(cfg)          # build on meta to avoid 16 full copies
#   model = shard_model(model, reshard_after_forward=True)
#   model.to_empty(device="cuda"); model.init_weights()   # or load a DCP checkpoint
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4)  # create AFTER sharding
#
# Optional extras:
#   * activation checkpointing per block (torch.utils.checkpoint / checkpoint_wrapper)
#     before fully_shard if activations dominate.
#   * model.set_requires_gradient_sync(False) on non-final micro-batches for
#     gradient accumulation without reduce-scatter each micro-batch.
