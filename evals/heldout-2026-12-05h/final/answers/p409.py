"""Diagnose and fix torch.compile recompiles in a plain PyTorch training loop.

Run it in three passes, switching behaviour with environment variables:

    TORCH_LOGS=recompiles python compile_tuning.py          # 1. see WHY it recompiles
    DYN=mark python compile_tuning.py                       # 2. fix guards on varying dims
    DYN=mark MODE=max-autotune python compile_tuning.py     # 3. then pick a mode

What to read in pass 1: each recompile prints the guard that failed, e.g.
"tensor 'x' size mismatch at index 1. expected 512, actual 384". That tells you which input
dimension (usually batch or sequence length) changes. Other common triggers: Python scalars
(lr, step counters, a dropout p) passed into the compiled function (they get specialized as
constants), changing dtypes/devices, requires_grad flips, model.train()/eval() switches.
TORCH_LOGS="recompiles,graph_breaks" also shows graph breaks.
"""
import os

import torch
import torch._dynamo

MODE = os.environ.get("MODE", "default")   # "default" | "reduce-overhead" | "max-autotune"
DYN = os.environ.get("DYN", "none")        # "none" | "mark" | "auto"


def build_model():
    return torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)
    ).cuda()


def main():
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

    # dynamic=None (default): compile static first; after a size changes once, dynamo
    #   recompiles that dim as dynamic ("automatic dynamic shapes").
    # dynamic=True: treat sizes as symbolic from the start (fewer recompiles, sometimes slower kernels).
    # dynamic=False: always specialize, so every new size is a recompile.
    compiled = torch.compile(model, mode=MODE, dynamic=True if DYN == "auto" else None)

    for step, seq in enumerate([512, 384, 640, 512, 256] * 4):
        x = torch.randn(8, seq, 1024, device="cuda")
        if DYN == "mark":
            # Mark exactly the dim you know varies; keep the rest static (best kernels).
            torch._dynamo.mark_dynamic(x, 1)
        loss = compiled(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    # Modes:
    #   default          - good compile time/perf balance, start here.
    #   reduce-overhead  - uses CUDA graphs (torch.compile's own cudagraph trees) to cut launch
    #                      overhead for small batches; needs static shapes and more memory, and
    #                      each new shape records a new graph, so fix dynamic shapes first.
    #   max-autotune     - benchmarks Triton/GEMM configs at compile time (slow compile, fastest
    #                      steady state); "max-autotune-no-cudagraphs" skips the graphs.
    #
    # Alternatives to varying shapes: pad/bucket sequence lengths to a few fixed sizes
    # (e.g. multiples of 128) so only a handful of graphs ever exist.
    #
    # Recompile limit: dynamo gives up (falls back to eager for that frame) after
    # torch._dynamo.config.recompile_limit recompiles (named cache_size_limit in older releases,
    # default 8). Raise it ONLY after the guards are fixed, otherwise you just pay more compiles:
    #     torch._dynamo.config.recompile_limit = 16
    #
    # Also measure steady-state time after warm-up; the first iterations include compile time.


if __name__ == "__main__":
    main()
