#!/usr/bin/env python3
"""Compare eager vs CUDA-graph step time from two Megatron/Bridge training logs.

Usage:
    python compare_steps.py eager.log graph.log

Background (why your numbers may look flat):
  * CUDA graphs only remove CPU launch overhead. For a Qwen3-30B-A3B style
    dropless MoE with all-to-all dispatch, the TE scopes you can graph
    (attn / moe_router / moe_preprocess) leave dispatch, the grouped expert
    GEMMs and the combine eager. If the step is communication- or GEMM-bound
    there is little to win; Bridge measured ~42.0 s graphed vs ~41.4 s eager
    on this shape (Megatron-Bridge PR #3868).
  * The capture itself (your 6.9 s) lands in the first logged iteration, so
    iteration 1 must be excluded; everything after it is replay.
  * Profile one eager run with nsys to see whether there are host gaps at
    all, and watch for silent fallbacks (dynamic/syncing dispatcher paths,
    FP8 quantization kernels outside the graphs) that erode the benefit.
"""
import re
import statistics
import sys

ITER_RE = re.compile(
    r"iteration\s+(\d+)/\s*\d+.*?elapsed time per iteration \(ms\):\s*([\d.]+)"
)

# Iteration 1 contains warmup+capture; drop it, keep the rest as steady state.
SKIP_FIRST = 1


def step_times(path):
    times = []
    with open(path, errors="replace") as f:
        for line in f:
            m = ITER_RE.search(line)
            if m:
                it, ms = int(m.group(1)), float(m.group(2))
                if it > SKIP_FIRST:
                    times.append(ms)
    if not times:
        sys.exit(f"{path}: no 'elapsed time per iteration' lines found (use log_interval=1)")
    return times


def summarize(name, t):
    print(
        f"{name:6s} n={len(t):3d}  mean={statistics.mean(t):9.1f} ms  "
        f"median={statistics.median(t):9.1f} ms  stdev={statistics.pstdev(t):7.1f}"
    )
    return statistics.mean(t)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    eager = step_times(sys.argv[1])
    graph = step_times(sys.argv[2])
    e = summarize("eager", eager)
    g = summarize("graph", graph)
    speedup = e / g
    print(f"speedup (mean eager / mean graph): {speedup:.3f}x")
    if speedup < 1.02:
        print(
            "Verdict: no meaningful gain. The step is not launch-bound at this "
            "shape; try narrowing/widening the scope or leave cuda_graph_impl=none."
        )
    else:
        print("Verdict: graphs help; keep them and re-check after dispatcher/precision changes.")


if __name__ == "__main__":
    main()
