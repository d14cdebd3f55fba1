# FSDP2 (fully_shard) for a 13B decoder on 16 GPUs (2 nodes x 8) -- annotated setup
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy

dist.init_process_group("nccl")
torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())

mesh = init_device_mesh("cuda", (16,))          # plain FSDP over all 16 ranks

with torch.device("meta"):
    model = build_13b_model()                   # your nn.Module; blocks in model.layers

mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

# 1) Shard the root first so the embedding / final norm / lm_head get their own group
#    and the root FSDP state is established...
fully_shard(model, mesh=mesh, mp_policy=mp)

# 2) ...then give every transformer block its own group, so each block is all-gathered
#    and reduce-scattered on its own and communication overlaps with compute.
for block in model.layers:
    fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=True)

model.to_empty(device="cuda")
model.init_weights()                            # re-init after materializing from meta

optim = torch.optim.AdamW(model.parameters(), lr=3e-4)

# reshard_after_forward:
#   True  -> after each block's forward its params go back to shards; backward re-all-gathers.
#            Peak memory ~ one unsharded block at a time. Costs one extra all-gather per block.
#   False -> unsharded params stay resident from forward to backward: no second all-gather,
#            but you hold the whole unsharded 13B (~26 GB bf16) plus activations.
# For 13B on 16 x 80 GB: sharded states are ~13B*16 B / 16 = ~13 GB per GPU, so True leaves lots
# of room for activations. Try False (or reshard_after_forward=8 = intra-node) only if you have
# headroom and the backward all-gathers show up in the profile.
# The root's value is set to False automatically (its params are needed right away in backward).
for step, batch in enumerate(loader):
    loss = model(**batch).loss
    loss.backward()
    optim.step()
    optim.zero_grad(set_to_none=True)
