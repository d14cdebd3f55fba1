"""compile_setup.py: torch.compile settings for a model that keeps recompiling.

Drop this next to your training script and call `compile_model(model)` instead of
`torch.compile(model)`. Every setting carries the reason it is there.

Run once with
    TORCH_LOGS="recompiles" python train.py
to see which guard fails on each recompile (the log prints e.g.
"tensor 'L['x']' size mismatch at index 1. expected 512, actual 384").
Add "graph_breaks" to TORCH_LOGS to see graph breaks as well.
"""

from __future__ import annotations

import os

import torch
import torch._dynamo


def compile_model(model: torch.nn.Module, *, mode: str | None = None) -> torch.nn.Module:
    # WHY dynamic=False: the recompiles come from Dynamo reacting to every new
    # input shape and re-tracing a new graph. Turning dynamic shape tracing off
    # tells it to stop guarding on sizes, so batch/sequence changes reuse the
    # same compiled graph instead of triggering a recompile each time.
    #
    # WHY mode defaults to "default": start with the cheapest compile. Only
    # move on once the recompiles are gone:
    #   "reduce-overhead"             -> CUDA graphs inside Inductor; best for small
    #                                    batches where launch overhead dominates;
    #                                    costs memory, wants stable shapes
    #   "max-autotune"                -> autotunes matmul/conv kernels (+ CUDA graphs);
    #                                    long compile, pays off on long runs
    #   "max-autotune-no-cudagraphs"  -> autotuning without the graph memory cost
    return torch.compile(model, mode=mode or "default", dynamic=False)


def configure_dynamo() -> None:
    # WHY: after `recompile_limit` recompiles of one frame (default 8; called
    # `cache_size_limit` in older releases) Dynamo gives up and runs that frame
    # eagerly. That alone can make a "compiled" model slow. Raise it only once
    # the guard churn is fixed, or you just pay for more compiles.
    torch._dynamo.config.recompile_limit = int(os.environ.get("RECOMPILE_LIMIT", "8"))


# Other causes of recompiles that no compile flag fixes (check the TORCH_LOGS output):
#   * a Python int/float that changes every step (step counter, lr) passed into the
#     compiled function -> pass it as a 0-d tensor or keep it outside
#   * model.train()/model.eval() toggling -> one compiled object per mode
#   * building a new module object each call -> compile once, reuse
#   * mixed dtypes/devices or requires_grad flipping on inputs
#
# Measure steady-state step time after warmup; the first calls include compile time.

if __name__ == "__main__":
    configure_dynamo()
    net = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 256))
    net = compile_model(net)
    for seq in (128, 192, 256):
        net(torch.randn(8, seq, 256))
    print("ok")
