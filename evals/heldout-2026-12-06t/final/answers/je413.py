# fsdp2_wrap_13b.py -- FSDP2 (fully_shard) wrapping for a ~13B decoder on 16 GPUs
# (2 nodes x 8). Assumes torch >= 2.6 (torch.distributed.fsdp.fully_shard).
#
# reshard_after_forward, in one sentence each:
#   True  -> after a block's forward, free the unsharded params; all-gather them
#            again in backward. Lowest memory, one extra all-gather per block.
#   False -> keep the block's unsharded params from forward until its backward.
#            No second all-gather (less communication, usually faster), but you
#            hold every block's full bf16 params at the peak, ~26 GB for 13B.
#   int N -> reshard to a smaller group of N ranks after forward (e.g. 8 = one
#            node): the backward re-gather stays on NVLink inside the node.
#            Memory and speed land in between.
#
# For 13B on 16 GPUs: sharded fp32 params + fp32 grads + Adam states are
# roughly 13e9 * (4 + 4 + 8) / 16 ~= 13 GB per GPU. With reshard_after_forward=False
# you add ~26 GB of gathered bf16 params plus activations; on 80 GB H100s that
# can fit with activation checkpointing, on 40 GB cards it won't.
# Start with True (the default for non-root modules). If you have memory headroom
# and profiling shows the backward all-gathers exposed, try 8 (intra-node),
# then False. Pick by memory headroom, measured.

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy


def shard_model(model: torch.nn.Module, reshard_after_forward=True, hsdp=False):
    world = dist.get_world_size()  # 16
    if hsdp:
        # HSDP: shard within a node, replicate across the 2 nodes. Param
        # all-gathers stay on NVLink; only the gradient all-reduce crosses nodes.
        # Costs more memory (sharded over 8 instead of 16).
        mesh = init_device_mesh("cuda", (world // 8, 8),
                                mesh_dim_names=("replicate", "shard"))
    else:
        mesh = init_device_mesh("cuda", (world,))

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                              reduce_dtype=torch.float32)

    # 1) Wrap bottom-up: each transformer block is its own FSDP unit, so
    #    each block gets its own all-gather / reduce-scatter, and the next
    #    block's all-gather can be prefetched while this one computes.
    layers = model.layers  # adjust to your model (e.g. model.model.layers for HF)
    n = len(layers)
    for i, block in enumerate(layers):
        # The last block runs first in backward, so resharding it after
        # forward only to gather it again right away gains nothing: keep it.
        raf = False if i == n - 1 else reshard_after_forward
        fully_shard(block, mesh=mesh, reshard_after_forward=raf, mp_policy=mp)

    # 2) Then the root: picks up whatever is left (embeddings, final norm,
    #    LM head) as one more unit. Its params are needed again at the very
    #    start of backward, so don't reshard them after forward.
    fully_shard(model, mesh=mesh, reshard_after_forward=False, mp_policy=mp)
    return model


# Usage (inside torchrun on 2x8 GPUs):
#   dist.init_process_group("nccl"); torch.cuda.set_device(local_rank)
#   with torch.device("meta"): model = MyModel(cfg)       # optional meta init
#   model = shard_model(model, reshard_after_forward=True)
#   model.to_empty(device="cuda"); model.init_weights()   # if meta-initialized
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4)  # AFTER fully_shard
#
# Notes:
# - Create the optimizer after fully_shard (it must see the DTensor params).
# - Call model(x), not model.forward(x), so the pre-forward hooks run.
# - Activation checkpointing goes on the blocks before fully_shard
#   (torch.utils.checkpoint / checkpoint_wrapper), and it matters as much as
#   reshard_after_forward for fitting 13B.
