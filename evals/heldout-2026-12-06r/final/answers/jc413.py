# FSDP2 (fully_shard) wrapping for a ~13B decoder on 16 GPUs (2 nodes x 8).
#
# reshard_after_forward:
#   True  -> after a block's forward, its unsharded params are freed; backward
#            all-gathers them again. Lowest memory, one extra all-gather per block.
#   False -> params stay unsharded from forward until backward. No re-gather
#            (faster), but you hold the full params of every block = more memory.
#   int N -> reshard to a smaller group of N ranks after forward (e.g. 8 = the
#            node), a middle ground: re-gather happens over NVLink only.
# For 13B on 16 x 80GB, True (default) is the safe choice; try False or 8 if
# you have headroom and see all-gather on the critical path in the profile.
# The root module: its params are all-gathered again right away for backward
# anyway, so FSDP keeps the root unsharded after forward in practice.

import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy

mesh = init_device_mesh("cuda", (16,))
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

model = build_model()  # your 13B model, ideally built on meta device

# 1) one FSDP unit per transformer block -> one all-gather per block, overlappable
for block in model.layers:
    fully_shard(block, mesh=mesh, reshard_after_forward=True, mp_policy=mp)

# 2) then the root (embeddings, final norm, lm head land here)
fully_shard(model, mesh=mesh, reshard_after_forward=True, mp_policy=mp)

# 3) optimizer AFTER fully_shard, on the DTensor params
optim = torch.optim.AdamW(model.parameters(), lr=3e-4)

# Alternative for 2x8 GPUs: HSDP - shard within a node, replicate across nodes
# mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
# fully_shard(block, mesh=mesh)   # 2D mesh -> HSDP
