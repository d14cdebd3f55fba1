"""fsdp2_wrap.py -- FSDP2 (fully_shard) wrapping for a 13B decoder on 16 GPUs.

How to wrap
-----------
Call ``fully_shard`` bottom-up: first on every transformer block, then once on
the root module. Each call makes one parameter group = one all-gather in
forward and one reduce-scatter in backward, so per-block groups give overlap
and keep only a block or two unsharded at a time. Never call it only on the
root (one huge all-gather) and never on the ``nn.ModuleList`` container (it
has no forward). Build the optimizer *after* sharding; the params become
DTensors.

reshard_after_forward
---------------------
``True`` (used below for the blocks) re-gathers each block's weights in
backward, which costs an extra all-gather per block per step. ``False`` is
the leaner setting: FSDP drops the gathered weights as soon as the block's
forward finishes and only keeps the local shard, so if the 13B run gets
close to OOM on 16 GPUs, flip the blocks to ``False`` first -- you save the
unsharded copies and also skip the backward all-gather. An ``int`` (e.g. 8)
reshards to the intra-node group so the backward all-gather stays on NVLink.

The root is left at ``False`` because it is needed immediately when backward
starts (this is also what FSDP2 picks for the root when the argument is left
unset).
"""

import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, world_size: int = 16) -> torch.nn.Module:
    mesh = init_device_mesh("cuda", (world_size,))
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    for block in model.layers:          # one group per transformer block
        fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=True)

    fully_shard(model, mesh=mesh, mp_policy=mp, reshard_after_forward=False)  # root last
    return model


if __name__ == "__main__":
    import torch.distributed as dist

    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
    model = shard_model(build_model())  # noqa: F821  (your 13B model factory)
    optim = torch.optim.AdamW(model.parameters(), lr=3e-4)
    print(f"rank {dist.get_rank()}: peak {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
