"""compile_setup.py: torch.compile settings for a plain PyTorch training loop that
keeps recompiling.

Usage:
    from compile_setup import compile_model
    model = compile_model(model)

Diagnose first:
    TORCH_LOGS="recompiles" python train.py     # prints the failing guard per recompile
    TORCH_LOGS="graph_breaks" python train.py   # where Dynamo splits the graph

Typical guard failures and what this module does about them:
  * size mismatch on a varying dim (sequence length, last short batch)
        -> compile with static shapes (dynamic=False below) so Dynamo stops
           re-specialising the graph every time it sees a new size;
           drop_last=True on the DataLoader for the short final batch
  * a Python float/int baked in as a constant (lr, step counter, dropout p)
        -> pass tensors instead (see make_optimizer)
  * a new module/closure object per call
        -> compile once, keep the returned module
"""

import os

import torch
import torch._dynamo


def compile_model(model: torch.nn.Module, mode: str = "max-autotune") -> torch.nn.Module:
    """Compile `model` once and return the compiled module.

    mode:
      "default"          shortest compile, solid speedup
      "reduce-overhead"  CUDA graphs inside torch.compile; static shapes, more memory
      "max-autotune"     autotuned Triton GEMMs + CUDA graphs; long compile, best steady state
    """
    # Log recompiles by default while tuning; remove once it is quiet.
    os.environ.setdefault("TORCH_LOGS", "recompiles")

    # Only raise the recompile limit when the number of variants is known and bounded
    # (e.g. a few fixed sequence-length buckets). Raising it does not fix a failing guard.
    # torch._dynamo.config.recompile_limit = 16   # `cache_size_limit` on older releases

    return torch.compile(
        model,
        mode=mode,
        dynamic=False,      # static shapes: one specialised graph, no re-specialisation on size changes
        fullgraph=False,    # set True while debugging to turn graph breaks into errors
    )


def make_optimizer(model: torch.nn.Module, lr: float = 3e-4):
    # A tensor lr keeps the scheduler's updates from being baked in as constants,
    # which would otherwise recompile a compiled optimizer step on every lr change.
    opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(lr), fused=True)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10_000)
    return opt, sched


def timed_steps(step_fn, n_warmup: int = 5, n_timed: int = 50) -> float:
    """Mean ms per step over steady-state steps (warmup includes compilation)."""
    for _ in range(n_warmup):
        step_fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n_timed):
        step_fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / n_timed
