# FSDP2 wrapping for a 13B decoder on 16 GPUs (2 nodes x 8), plain PyTorch >= 2.4
#
# Rule of thumb:
#   reshard_after_forward=True  -> params freed after each block's forward, re-all-gathered in backward.
#                                   Lowest memory (ZeRO-3-like), one extra all-gather per block.
#   reshard_after_forward=False -> params stay gathered from forward to backward. Faster (no re-gather),
#                                   but each block keeps its full params until its backward -> more memory.
# 13B in bf16 = ~26 GB of params unsharded; with 16-way sharding params+grads+Adam states are ~13 GB/GPU,
# so on 80 GB cards you usually have room. Start with True; flip to False (or an int, e.g. 8, to reshard to
# the intra-node group = HSDP-like) only if a profile shows the backward all-gathers are exposed AND memory allows.
import torch
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
from torch.distributed.device_mesh import init_device_mesh

mesh = init_device_mesh("cuda", (16,))
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

model = build_13b_model()           # your nn.Module with model.layers = ModuleList of blocks

# 1) shard each transformer block first (these are the all-gather/reduce-scatter units)
for block in model.layers:
    fully_shard(block, mesh=mesh, reshard_after_forward=True, mp_policy=mp)

# 2) then the root (embeddings, final norm, lm head go into the root's group)
fully_shard(model, mesh=mesh, reshard_after_forward=True, mp_policy=mp)
# the root's params are needed again right at the start of backward, so FSDP does not reshard them anyway

optim = torch.optim.AdamW(model.parameters(), lr=3e-4)   # create AFTER fully_shard (DTensor params)
