# FSDP2 (fully_shard) for a ~13B decoder on 16 GPUs (2 nodes x 8).
#
# Short answer
#   * Wrap bottom-up: fully_shard() every transformer block, then the root model.
#   * reshard_after_forward=True (the default for non-root modules) frees each block's gathered
#     params after forward and all-gathers them again in backward: lowest memory, one extra
#     all-gather per block per step.
#   * reshard_after_forward=False keeps the gathered params from forward to backward: no second
#     all-gather (faster), but up to the whole unsharded bf16 model (~26 GB for 13B) is resident
#     at the forward/backward boundary on every GPU.
#   * On 2 nodes a good middle ground is an int: reshard_after_forward=8 keeps an 8-way
#     (intra-node) shard after forward, so the backward all-gather stays on NVLink and costs
#     ~26/8 = ~3.3 GB extra per GPU. The int must be a non-trivial divisor of the shard dim (16).
#   Pick by memory headroom: start with True. If peak memory leaves room, try 8, then False,
#   and measure step time each time.

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

# PyTorch >= 2.6 public path; on 2.4/2.5 use torch.distributed._composable.fsdp
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

dist.init_process_group("nccl")
local_rank = dist.get_rank() % torch.cuda.device_count()
torch.cuda.set_device(local_rank)

mesh = init_device_mesh("cuda", (dist.get_world_size(),))  # 1-D mesh over 16 ranks = full FSDP
# HSDP alternative (replicate across nodes, shard within a node):
# mesh = init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))

mp_policy = MixedPrecisionPolicy(
    param_dtype=torch.bfloat16,   # compute/all-gather in bf16
    reduce_dtype=torch.float32,   # reduce-scatter gradients in fp32
)

model = build_model()  # your 13B model; construct on meta device for large models, then init


def shard_model(model, reshard=True):
    # Optional: activation checkpointing goes on the blocks BEFORE fully_shard.
    for block in model.layers:  # e.g. model.model.layers for HF Llama-style models
        fully_shard(block, mesh=mesh, mp_policy=mp_policy, reshard_after_forward=reshard)
    # Root last: picks up the remaining params (embeddings, final norm, lm_head).
    # FSDP2 keeps the root's params after forward anyway, since backward needs them right away.
    fully_shard(model, mesh=mesh, mp_policy=mp_policy)
    return model


model = shard_model(model, reshard=True)  # try 8, then False, if memory allows

# Optimizer AFTER fully_shard, so it sees the sharded DTensor parameters.
optim = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)

# Rough per-GPU budget with reshard_after_forward=True (fp32 sharded params + AdamW):
#   params fp32 4B + grads fp32 4B + Adam m,v 8B = 16 B/param * 13e9 / 16 ranks = ~13 GB
#   + one or two gathered bf16 blocks in flight (prefetch) + activations.
# With False, add the gathered bf16 weights of all blocks held between forward and backward.
