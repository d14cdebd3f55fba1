# fsdp2_wrap.py: FSDP2 (fully_shard) wrapping for a ~13B decoder on 16 GPUs (2 nodes x 8).
#
# Short answer on reshard_after_forward:
#   True  -> after a block's forward, its params go back to shards; backward re-all-gathers them.
#            Lowest memory, one extra all-gather per block in backward.
#   False -> unsharded params stay in memory from forward until backward; no backward all-gather.
#            Faster, but every block's full bf16 params stay resident: ~26 GB for 13B.
#   int   -> reshard to a smaller group after forward (e.g. 8 = within the node), so the backward
#            all-gather stays on NVLink. Memory cost in between (1/8 of the params per GPU).
# For 13B on 16 x 80 GB: start with True on the transformer blocks (or 8 if the backward
# all-gather over the inter-node network shows up in the profile), and False on the root,
# since the root's params are needed right away when backward starts.
#
# Rough per-GPU memory with full sharding over 16 ranks (fp32 sharded params, fp32 grads, AdamW):
#   sharded states ~ 13e9 * (4 param + 4 grad + 8 AdamW) B / 16 ~ 13 GB; activations come on top.
#   reshard_after_forward=False adds up to ~26 GB (all unsharded bf16 params) at the fwd/bwd boundary.
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

try:  # torch >= 2.6
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
except ImportError:  # torch 2.4/2.5
    from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard


def wrap_fsdp2(model: torch.nn.Module, reshard_blocks=True, use_hsdp=False):
    """Apply fully_shard bottom-up: each transformer block first, then the root.

    model.layers: the list of decoder blocks (adapt the attribute name to your model).
    Apply activation checkpointing to the blocks *before* calling this.
    """
    world = dist.get_world_size()  # 16
    if use_hsdp:
        # Replicate across the 2 nodes, shard within each node: collectives stay on NVLink,
        # only the gradient all-reduce crosses nodes. Needs the model to fit sharded over 8.
        mesh = init_device_mesh("cuda", (world // 8, 8), mesh_dim_names=("replicate", "shard"))
    else:
        mesh = init_device_mesh("cuda", (world,), mesh_dim_names=("shard",))

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # One FSDP unit per transformer block = one all-gather / reduce-scatter per block,
    # which overlaps with the neighbouring block's compute. Don't wrap individual Linears
    # (too many small collectives), and don't wrap only the root (everything all-gathered at once).
    for block in model.layers:
        fully_shard(block, mesh=mesh, reshard_after_forward=reshard_blocks, mp_policy=mp)

    # Root last: picks up the remaining params (embeddings, final norm, lm_head).
    fully_shard(model, mesh=mesh, reshard_after_forward=False, mp_policy=mp)
    return model


# Usage:
#   model = build_13b_model()              # on meta device is fine; materialize after wrapping
#   wrap_fsdp2(model, reshard_blocks=True)  # or reshard_blocks=8 to keep backward AG intra-node
#   model.to_empty(device="cuda"); model.init_weights()
#   optim = torch.optim.AdamW(model.parameters(), lr=3e-4)  # create AFTER fully_shard (DTensor params)
#
# How to decide between True / 8 / False: run a few steps with each and record
# torch.cuda.max_memory_allocated() and step time. Keep the fastest setting that leaves a few GB
# of headroom at your real sequence length and micro-batch size.
