# compile_tuning.py
# Drop-in setup for a plain PyTorch training loop that keeps recompiling under
# torch.compile. Read the comments top to bottom, they are the actual advice.

import os
import torch
import torch._dynamo

# 1) Find out WHY it recompiles. Every recompile logs the guard that failed,
#    e.g. "tensor 'x' size mismatch at index 1. expected 512, actual 384"
#    or a guard on a Python float/int value. Run once with:
#        TORCH_LOGS=recompiles,graph_breaks python train.py
#    (or set it here before the first compiled call)
os.environ.setdefault("TORCH_LOGS", "recompiles")


def build_compiled(model: torch.nn.Module) -> torch.nn.Module:
    # 2) Shapes. The default (dynamic=None) is what causes the churn: the first
    #    call is compiled for the exact shape, the next new shape triggers a
    #    recompile, and so on. Pinning dynamic=False tells Dynamo to stop
    #    re-deriving shape guards and reuse the graph it already has, so a new
    #    sequence length no longer triggers a fresh compile.
    #
    # 3) Mode: start with "default". "reduce-overhead" adds CUDA graphs, which
    #    only help once shapes are stable; "max-autotune" spends a long time
    #    benchmarking kernels. Switch only after recompiles are gone.
    return torch.compile(model, mode="default", dynamic=False, fullgraph=False)


def make_scalar_tensor(x: float, device="cuda") -> torch.Tensor:
    # 4) Python scalars that change every step (LR, loss scale, step counter)
    #    are guarded on their exact value -> one recompile per new value.
    #    Pass them as 0-d tensors instead.
    return torch.tensor(x, device=device)


# 5) Data side: pad/bucket sequence lengths to a few sizes (e.g. multiples of
#    128) so there are only a handful of distinct shapes at all.
def pad_to_multiple(t: torch.Tensor, multiple: int = 128, dim: int = 1, value=0):
    n = t.size(dim)
    target = (n + multiple - 1) // multiple * multiple
    if target == n:
        return t
    pad = [0, 0] * (t.dim() - dim - 1) + [0, target - n]
    return torch.nn.functional.pad(t, pad, value=value)


# 6) Limit: Dynamo gives up after torch._dynamo.config.recompile_limit
#    (default 8; older releases call it cache_size_limit) and runs that frame
#    eagerly -- which is probably why it "gets slow". Don't raise it blindly;
#    fix the guards first. If you truly have a bounded set of shapes:
torch._dynamo.config.recompile_limit = 16

# 7) Benchmark after warmup: skip the first iterations (they compile), and
#    time with CUDA events / torch.cuda.synchronize().
