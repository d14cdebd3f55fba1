#!/usr/bin/env python3
"""A/B: eager vs CUDA graphs for a small GPT on one H200, with bootstrap confidence intervals.

Runs your Megatron-LM launch twice (graphs off / graphs on), parses Megatron's own
"elapsed time per iteration (ms)" from each log, and reports mean step time with a 95% bootstrap CI
plus the speedup CI.

Usage:
    python ab_cuda_graphs.py --launch "torchrun --nproc-per-node 1 pretrain_gpt.py $(cat my_gpt_args.txt)"

Notes on the setup:
  * --log-interval 1 so every iteration is printed.
  * Iteration 1 is dropped: it includes CUDA context creation, cuBLAS/cuDNN autotuning and allocator growth.
  * --cuda-graph-warmup-steps 1: one eager step is enough to settle shapes before capture, and it gets the
    graphs active as early as possible so nearly every measured iteration runs as a replay.
  * Same seed for both runs; graphs must not change the loss, so the script also reports the max loss delta.
"""
import argparse
import re
import shlex
import subprocess

import numpy as np

ITERS = 40
SKIP = 1  # iterations dropped from the front of each log (startup)

GRAPH_FLAGS = [
    "--cuda-graph-impl", "full_iteration",          # megatron-core 0.18+; 0.16/0.17: --cuda-graph-impl local --cuda-graph-scope full_iteration
    "--cuda-graph-warmup-steps", "1",
    "--no-check-for-nan-in-loss-and-grad",          # required with full-iteration graphs
    "--te-rng-tracker",
]
COMMON = ["--train-iters", str(ITERS), "--log-interval", "1", "--seed", "1234"]

ITER_RE = re.compile(r"iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([\d.]+).*?lm loss: ([\d.E+-]+)")


def run(cmd: list[str], log_path: str) -> list[tuple[int, float, float]]:
    with open(log_path, "w") as log:
        subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=True)
    rows = []
    with open(log_path) as log:
        for line in log:
            m = ITER_RE.search(line)
            if m:
                rows.append((int(m.group(1)), float(m.group(2)), float(m.group(3))))
    return rows


def boot_ci(x: np.ndarray, n: int = 10000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = rng.choice(x, size=(n, len(x)), replace=True).mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--launch", required=True, help="your full launch command (without graph flags)")
    args = ap.parse_args()
    base = shlex.split(args.launch) + COMMON

    eager = run(base, "eager.log")
    graph = run(base + GRAPH_FLAGS, "graph.log")

    e = np.array([t for it, t, _ in eager if it > SKIP])
    g = np.array([t for it, t, _ in graph if it > SKIP])

    e_ci, g_ci = boot_ci(e), boot_ci(g)
    rng = np.random.default_rng(1)
    sp = [rng.choice(e, len(e)).mean() / rng.choice(g, len(g)).mean() for _ in range(10000)]
    sp_lo, sp_hi = np.percentile(sp, [2.5, 97.5])

    dloss = max(abs(a[2] - b[2]) for a, b in zip(eager, graph))
    print(f"eager : {e.mean():8.2f} ms  95% CI [{e_ci[0]:.2f}, {e_ci[1]:.2f}]  (n={len(e)})")
    print(f"graphs: {g.mean():8.2f} ms  95% CI [{g_ci[0]:.2f}, {g_ci[1]:.2f}]  (n={len(g)})")
    print(f"speedup {e.mean() / g.mean():.2f}x  95% CI [{sp_lo:.2f}, {sp_hi:.2f}]")
    print(f"max |loss delta| = {dloss:.2e}")
    print("verdict:", "faster" if sp_lo > 1.0 else ("slower" if sp_hi < 1.0 else "no measurable difference"))


if __name__ == "__main__":
    main()
