# FSDP2 (torch.distributed.fsdp.fully_shard) for a ~13B decoder on 16 GPUs (2 nodes x 8)
#
# reshard_after_forward:
#   True  -> after each block's forward, its params are freed back to shards and
#            all-gathered again in backward. Lowest memory, one extra all-gather per
#            block per step (ZeRO-3-like). Default.
#   False -> params stay unsharded from forward until backward (ZeRO-2-like): no
#            re-gather in backward, so faster, but every block's full params stay
#            resident between forward and backward.
#   int   -> reshard to a smaller group after forward (e.g. 8 = intra-node), so the
#            backward all-gather stays on NVLink. Middle ground for multi-node.
#
# 13B in bf16 is ~26 GB of params; unsharded-between-fwd-and-bwd would put all of it
# on every GPU on top of activations, so on 80 GB cards keep True for the blocks
# (or try 8 if the inter-node all-gather is your bottleneck and memory allows).
# The root module's params are needed right at the start of backward, so False there
# is cheap and avoids a pointless reshard/regather.

import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy

mesh = init_device_mesh("cuda", (16,))  # or (2, 8) with HSDP: replicate across nodes

mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

model = build_13b_model()  # on meta device is fine; materialize after sharding

# 1) wrap each transformer block (the unit of all-gather / reshard)
for block in model.layers:
    fully_shard(block, mesh=mesh, reshard_after_forward=True, mp_policy=mp)

# 2) then the root (embeddings, final norm, lm head end up in the root's group)
fully_shard(model, mesh=mesh, reshard_after_forward=False, mp_policy=mp)

# optimizer AFTER fully_shard, so it sees the DTensor sharded params
optim = torch.optim.AdamW(model.parameters(), lr=3e-4)

# Notes
# - Wrap bottom-up: children first, root last. Don't wrap individual Linear layers;
#   per-block is the right granularity for prefetch/overlap.
# - If memory is tight, add activation checkpointing per block before fully_shard.
# - Measure both settings: step time and torch.cuda.max_memory_allocated().
