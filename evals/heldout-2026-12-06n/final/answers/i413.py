# FSDP2 wrapping for a 13B decoder on 16 GPUs (2 nodes x 8)
# torch >= 2.4: from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
# (older 2.x: torch.distributed._composable.fsdp)
#
# reshard_after_forward:
#   True  -> params are freed after each block's forward and all-gathered again in
#            backward: lowest memory, one extra all-gather per block per step.
#   False -> params stay unsharded from forward until backward: no re-gather (faster),
#            but each block's full params stay resident -> roughly the whole 13B in bf16
#            (~26 GB) per GPU at peak.
#   int   -> reshard to a smaller group (e.g. 8 = intra-node) after forward: middle ground.
# 13B on 16 x 80 GB: start with True; if you have headroom, try False (or 8) and measure.
# The root's last layer is usually left unresharded anyway since backward starts there.
import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy

mesh = init_device_mesh("cuda", (16,))
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

model = build_13b_model()  # noqa: F821

# 1) shard every transformer block (each becomes one all-gather / reduce-scatter unit)
for block in model.layers:
    fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=True)

# 2) then the root, which picks up embeddings, final norm and output head
fully_shard(model, mesh=mesh, mp_policy=mp, reshard_after_forward=True)

# optimizer AFTER sharding so it sees the DTensor params
optim = torch.optim.AdamW(model.parameters(), lr=3e-4)

# Alternative for 2 nodes: HSDP (replicate across nodes, shard within node)
# mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
# and pass that 2-D mesh to fully_shard -> less inter-node traffic, more memory.
