"""FSDP2 (fully_shard) for a 13B decoder on 16 GPUs (e.g. 2 nodes x 8).

Short version
-------------
* Wrap bottom-up: call fully_shard on every transformer block first, then once on the root
  module. Each block becomes its own all-gather / reduce-scatter group; the root picks up
  whatever is left (embeddings, final norm, lm_head).
* reshard_after_forward=True  -> after a block's forward its parameters are freed back to the
  shard and all-gathered again in backward. Lowest memory (ZeRO-3 like), one extra all-gather
  per block per step.
* reshard_after_forward=False -> the unsharded parameters stay in memory from forward until
  backward; no second all-gather (ZeRO-2 like), but every block's full bf16 weights stay
  resident at the same time, i.e. the whole 13B model (~26 GB in bf16) on every GPU at peak.
* reshard_after_forward=<int> (e.g. 8) -> after forward, reshard to a smaller group such as the
  intra-node GPUs: the backward all-gather then runs over NVLink only. Memory sits in between
  (13B * 2 bytes / 8 ≈ 3.3 GB of params per GPU kept between forward and backward).

For 13B on 16x 80 GB I'd start with True for the blocks (the default) and measure; switch to the
int form (8, one node) if the backward all-gathers over the inter-node network show up in the
profile, and only go to False if you have the memory headroom and want the last bit of speed.
The root module is usually left with reshard_after_forward=False (that is also what None
resolves to for the root): its parameters are the first needed when backward starts.
"""

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard_model(model: torch.nn.Module, reshard: bool | int = True) -> torch.nn.Module:
    world_size = dist.get_world_size()                      # 16
    mesh = init_device_mesh("cuda", (world_size,))

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    blocks = list(model.layers)                             # adapt: model.model.layers for HF
    for i, block in enumerate(blocks):
        # The last block's params are needed immediately when backward starts,
        # so resharding it only to re-gather it right away buys nothing.
        last = i == len(blocks) - 1
        fully_shard(
            block,
            mesh=mesh,
            reshard_after_forward=False if last else reshard,
            mp_policy=mp,
        )

    # Root last: embeddings / norm / lm_head go into the root group.
    fully_shard(model, mesh=mesh, reshard_after_forward=False, mp_policy=mp)
    return model


# Usage
# -----
# with torch.device("meta"):
#     model = MyTransformer(cfg)          # build on meta to avoid 16 full copies in CPU RAM
# shard_model(model, reshard=True)        # or reshard=8 to re-gather intra-node in backward
# model.to_empty(device="cuda"); model.init_weights()   # or load a DCP checkpoint
# optim = torch.optim.AdamW(model.parameters(), lr=3e-4)  # create AFTER fully_shard (DTensor params)
#
# for batch in loader:
#     loss = model(batch["input_ids"]).loss   # call model(...), not model.forward(...)
#     loss.backward()
#     optim.step(); optim.zero_grad()
#
# Rough memory per GPU with True: params+grads+AdamW states sharded 16 ways
# (13e9 * (4 + 4 + 8) bytes / 16 ≈ 13 GB with fp32 masters) plus activations and one or two
# gathered blocks in flight. Activation checkpointing per block is the next lever if
# activations dominate.
