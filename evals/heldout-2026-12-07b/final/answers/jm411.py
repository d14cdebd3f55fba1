"""FSDP2 (fully_shard) wrapping for a ~13B decoder on 16 GPUs (2 nodes x 8).

Short answer
------------
* Wrap bottom-up: call ``fully_shard`` on every transformer block, then once on the
  root model. The root call picks up whatever is left (embeddings, final norm,
  LM head). Never call it only on the root: then the whole model is one group,
  its full parameters get all-gathered at once (~26 GB of bf16 for 13B), and
  communication can't overlap with compute.
* ``reshard_after_forward`` trades memory against communication:
    - True  : free each block's unsharded params after its forward, all-gather them
              again in backward. Lowest memory; one extra all-gather per block.
    - False : keep the unsharded params from forward until backward. Saves that
              all-gather but holds the full bf16 weights of *every* block at the
              forward/backward boundary (~26 GB per GPU for 13B), on top of the
              sharded state and activations.
    - int   : reshard to a smaller group after forward, e.g. 8 = one node. The
              backward all-gather then stays on NVLink; memory after forward is
              1/8 of the full weights (~3.3 GB) instead of 1/16.
  For 13B on 16 GPUs use True on the blocks (or 8 if you have headroom and the
  inter-node link is the bottleneck), and False on the root. The root's params are
  needed again as soon as backward starts, so resharding them only adds an
  all-gather. Recent PyTorch does exactly this by default
  (reshard_after_forward=None -> True for non-root, False for the root). Older
  releases default to True everywhere, so set it explicitly.

Rough memory per GPU (sharded over 16): fp32 params 3.3 GB + fp32 grads 3.3 GB +
Adam states 6.5 GB ≈ 13 GB, plus activations and the unsharded params of the
blocks currently in flight. Keep the freed memory for activations/batch size; add
activation checkpointing per block if activations dominate. If inter-node
bandwidth is the limit, HSDP (shard within a node, replicate across the two nodes)
is the other option: 2-D mesh (2, 8). Sharded state doubles to ~26 GB, but
gradient reduction is the only inter-node traffic.
"""
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper


def build(model_cls, cfg, hsdp: bool = False, act_ckpt: bool = True):
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())

    mesh = (
        init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate", "shard"))
        if hsdp
        else init_device_mesh("cuda", (16,))
    )
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # Build on the meta device so no rank ever materialises the full 13B model.
    with torch.device("meta"):
        model = model_cls(cfg)

    for i, block in enumerate(model.layers):
        if act_ckpt:
            # Apply activation checkpointing before sharding, per block.
            block = checkpoint_wrapper(block)
            model.layers[i] = block
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=True)

    # Root last: groups the remaining params (embeddings, norm, output head).
    fully_shard(model, mesh=mesh, mp_policy=mp, reshard_after_forward=False)

    # Materialise the local shards and initialise (or load a sharded checkpoint
    # with torch.distributed.checkpoint instead).
    model.to_empty(device="cuda")
    model.init_weights()  # your model's init function

    # The optimizer must see the sharded (DTensor) parameters, so create it after fully_shard.
    optim = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    return model, optim

# Per step: call model(inputs), not model.forward(inputs), so the FSDP hooks run.
