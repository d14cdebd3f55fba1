"""fsdp2_wrap.py -- how to wrap a 13B decoder with FSDP2 (``fully_shard``) on 16 GPUs,
and which ``reshard_after_forward`` to use.

Answer in one paragraph
-----------------------
Call ``fully_shard`` on every transformer block first, then once on the root model.
Each block becomes its own communication group (one all-gather before its forward,
one reduce-scatter after its backward), so only about one block's full parameters are
unsharded at a time. For ``reshard_after_forward``:

* ``True``  -> free the gathered parameters after each block's forward and all-gather
  them again in backward. Lowest memory, one extra all-gather per block per step.
* ``False`` -> keep the gathered parameters until backward. Skips that second
  all-gather (faster), but holds the *unsharded* parameters of every block between
  forward and backward -- for 13B in bf16 that is ~26 GB per GPU on top of activations.
* an ``int`` (e.g. 8) -> after forward, reshard only within a group of that size
  (the node). The backward all-gather then runs over NVLink inside the node; memory
  sits between ``True`` and ``False``. It must be a non-trivial divisor of the shard
  dimension (16 here, so 2, 4 or 8).
* leave it unset on the root: the default (``None``) is ``True`` for non-root modules
  and ``False`` for the root, which is what you want since the root's parameters are
  needed immediately when backward starts.

For 13B on 16 GPUs (2 nodes x 8): start with ``True`` on the blocks. Per GPU the
sharded state is moderate (~13e9 * (4 fp32 params + 4 fp32 grads + 8 Adam) / 16 ~= 13 GB),
so the question is activations vs. speed. If you have headroom
after a few steps at your real sequence length/batch, try ``reshard_after_forward=8``
(intra-node) and measure; go to ``False`` only if there is still clear headroom.
Pick by measured memory, not by rule.

Doctest-style usage (needs an initialised process group; skipped under doctest)::

    >>> mesh = init_device_mesh("cuda", (16,))                      # doctest: +SKIP
    >>> model = build_13b_model()                                   # doctest: +SKIP
    >>> wrap(model, mesh, reshard_after_forward=True)               # doctest: +SKIP
    >>> type(model.layers[0]).__name__.startswith("FSDP")           # doctest: +SKIP
    True
    >>> peak = torch.cuda.max_memory_allocated() / 2**30            # doctest: +SKIP

Hybrid sharding (shard within a node, replicate across nodes) is another option for
2 nodes: pass a 2-D mesh ``init_device_mesh("cuda", (2, 8), mesh_dim_names=("replicate",
"shard"))``; parameters are sharded 8-way inside the node and gradients all-reduced
across nodes. Costs more memory than 16-way sharding, saves inter-node all-gathers.
"""

from __future__ import annotations

import torch
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh  # noqa: F401
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def wrap(
    model: torch.nn.Module,
    mesh: DeviceMesh,
    reshard_after_forward: bool | int = True,
) -> torch.nn.Module:
    """Shard each transformer block, then the root.

    ``model.layers`` is the list of decoder blocks (adjust the attribute to your model,
    e.g. ``model.model.layers`` for HF Llama). Order matters: children before the root,
    so the root only picks up what's left (embeddings, final norm, LM head).
    """
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)

    for block in model.layers:
        fully_shard(block, mesh=mesh, reshard_after_forward=reshard_after_forward, mp_policy=mp)

    # root: leave reshard_after_forward unset -> False for the root by default
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


def build_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    """Create the optimizer *after* wrapping so it sees the sharded DTensor parameters."""
    return torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)


if __name__ == "__main__":
    import doctest

    doctest.testmod()
