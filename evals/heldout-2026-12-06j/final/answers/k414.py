"""fsdp2_setup.py: FSDP2 (fully_shard) wrapping for a 13B decoder on 16 GPUs.

Answer in brief
---------------
* reshard_after_forward=True  -> free unsharded params after each block's forward, all-gather
  again in backward. Lowest memory, one extra all-gather per block. Default choice for 13B/16.
* reshard_after_forward=False -> keep the unsharded params from forward to backward.
  Saves the backward all-gather but keeps ~26 GB (13B x bf16) of full weights resident
  per GPU. Only if you have the headroom.
* reshard_after_forward=8     -> reshard to the 8 GPUs of a node; the backward all-gather
  stays intra-node (NVLink). A middle ground for 2 x 8 GPUs.

Wrapping: shard the whole model first so every parameter is sharded from the start,
then register each transformer block as its own FSDP unit, so all-gathers/reduce-scatters
happen block by block and overlap with compute.

Launch:  torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint $MASTER:29500 train.py
"""

import os

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

RESHARD_AFTER_FORWARD = True  # True | False | 8


def setup_fsdp(model: torch.nn.Module) -> torch.nn.Module:
    mesh = init_device_mesh("cuda", (dist.get_world_size(),))
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    # 1) root first: every parameter becomes a sharded DTensor right away
    fully_shard(model, mesh=mesh, mp_policy=mp)

    # 2) then one FSDP unit per transformer block for per-layer communication
    for block in model.layers:
        fully_shard(
            block,
            mesh=mesh,
            mp_policy=mp,
            reshard_after_forward=RESHARD_AFTER_FORWARD,
        )
    return model


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

    with torch.device("meta"):
        model = build_13b_model()          # your model constructor
    model = setup_fsdp(model)
    model.to_empty(device="cuda")
    model.init_weights()                   # re-init on the sharded params

    optim = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1)

    for step, batch in enumerate(get_dataloader()):
        loss = model(**batch).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        optim.zero_grad(set_to_none=True)
        if step % 10 == 0 and dist.get_rank() == 0:
            print(f"step {step} loss {loss.item():.4f} "
                  f"peak_mem {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")


if __name__ == "__main__":
    main()
