# fsdp2_13b_setup.py: FSDP2 (fully_shard) for a 13B decoder on 16 GPUs (2 nodes x 8)
#
# Answer in short [1]: start with reshard_after_forward=True on the transformer blocks
# (ZeRO-3-like, lowest memory); switch to False only if the profile shows the
# backward all-gathers exposed AND you have the memory headroom [2].
# Wrap each block separately [3] so every block is its own all-gather/reduce-scatter unit.

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard  # torch>=2.6 [4]

dist.init_process_group("nccl")
torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
mesh = init_device_mesh("cuda", (dist.get_world_size(),))          # 1-D mesh, 16 ranks

with torch.device("meta"):
    model = build_13b_model()                                        # your nn.Module

mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

# Root first: registers the model as the FSDP root, so the blocks below
# become nested FSDP units under it [3].
fully_shard(model, mesh=mesh, mp_policy=mp)

n = len(model.layers)
for i, block in enumerate(model.layers):
    fully_shard(
        block,
        mesh=mesh,
        mp_policy=mp,
        # last block: its backward starts right after forward, so resharding it
        # would be an immediate re-gather; keep it unsharded
        reshard_after_forward=(i < n - 1),
    )

model.to_empty(device="cuda")
model.init_weights()                                                 # your init on sharded DTensors

# Build the optimizer AFTER sharding: parameters are now DTensor shards.
optim = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)

# Footnotes
# [1] Memory budget, 13B, AdamW, fp32 master params: ~16 B/param = ~208 GB of states,
#     /16 ranks = ~13 GB per GPU sharded. That part is the same for True and False.
# [2] reshard_after_forward=False keeps every block's *unsharded* bf16 params alive
#     from forward to backward: up to ~26 GB extra per GPU for 13B (2 B/param, all
#     layers) on top of activations. True frees them after each block's forward and
#     re-all-gathers in backward: more communication, much less memory. On 80 GB H100s
#     with long sequences, True is usually the right default. An int (e.g. 8) reshards
#     to the intra-node group after forward, so the backward gather stays on NVLink.
# [3] Per-block wrapping gives you overlap: FSDP2 prefetches block i+1's all-gather
#     while block i computes. One bucket for the whole model would gather all 13B
#     params at once.
# [4] On torch 2.4/2.5: from torch.distributed._composable.fsdp import fully_shard, MixedPrecisionPolicy
