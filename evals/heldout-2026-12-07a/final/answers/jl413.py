"""FSDP2 wrapping for a ~13B decoder on 16 GPUs (plain PyTorch, no Megatron; no CUDA-graph settings involved).

reshard_after_forward, the trade-off
------------------------------------
True   Free each block's unsharded params right after its forward and all-gather them again in
       backward. Lowest memory, one extra all-gather per block per step. This is the default for
       non-root modules.
False  Keep each block's unsharded params from forward until its backward. Saves that
       backward all-gather, but at peak you hold roughly the whole model unsharded in bf16:
       13e9 x 2 bytes ~ 26 GB per GPU on top of the sharded state and activations.
int    Reshard to a smaller group after forward, e.g. 8 = one node. The backward all-gather then
       stays on NVLink and costs about 26 GB / 8 ~ 3.3 GB extra. It must be a non-trivial divisor
       of the shard dimension, so 2, 4 or 8 here, not 1 or 16.

Rough per-GPU budget with bf16 compute and fp32 master/optimizer state, fully sharded over 16:
params fp32 ~3.3 GB + grads fp32 ~3.3 GB + Adam m,v ~6.5 GB = ~13 GB, plus activations.
- 80 GB H100/A100: True is safe. Try 8 (intra-node) or False if you have >30 GB headroom after
  activations, and keep whichever is faster in a steady-state A/B.
- 40 GB cards: stay with True and add activation checkpointing.

Wrapping rules
--------------
- Bottom-up: fully_shard each transformer block first, then the root. The root call picks up
  whatever is left (embeddings, final norm, output head) as one group.
- Skip resharding the last block: backward starts there, so FSDP would re-gather it right away anyway.
- The root's reshard is handled as False by FSDP itself (its params are needed at once in backward).
- Apply activation checkpointing before fully_shard, and build the optimizer *after* fully_shard
  (it must see the DTensor params).
"""

import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard  # torch>=2.6; older: torch.distributed._composable.fsdp


def shard_13b(model: torch.nn.Module, reshard_after_forward=True, hsdp: bool = False):
    """Wrap model in place. Expects model.layers to be the list of transformer blocks."""
    if hsdp:
        # 2 replicas x 8-way sharding: parameter all-gathers stay inside a node;
        # only the gradient all-reduce crosses nodes. Costs 2x the sharded state per GPU.
        mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
    else:
        mesh = init_device_mesh("cuda", (16,))

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    blocks = list(model.layers)
    for i, block in enumerate(blocks):
        is_last = i == len(blocks) - 1
        fully_shard(
            block,
            mesh=mesh,
            mp_policy=mp,
            reshard_after_forward=False if is_last else reshard_after_forward,
        )
    fully_shard(model, mesh=mesh, mp_policy=mp)  # root last
    return model


# usage (torchrun --nnodes 2 --nproc_per_node 8 train.py):
#   torch.cuda.set_device(local_rank); torch.distributed.init_process_group("nccl")
#   model = build_13b()                      # or build on "meta" and materialize after sharding
#   shard_13b(model, reshard_after_forward=True)   # then try 8 and compare step time / peak memory
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
