#!/usr/bin/env python3
"""Compare eager vs CUDA-graph step time from two Megatron/Bridge training logs.

Your capture succeeded (48 graphable layers, ~6.9 s on rank 0), so the question is
just whether replay is faster. Megatron logs one line per iteration like

    [2026-..] iteration        5/      50 | ... | elapsed time per iteration (ms): 41362.1 | ...

Usage:
    python compare_steps.py eager.log graphs.log

How to read the result:
  * Iteration 1 of the graph run contains the CUDA graph capture (that's your
    6.9 s), so we drop it; everything after that is replay and is what you'd
    see in steady state. Drop iteration 1 of the eager run too for symmetry.
  * Graphs only remove launch overhead. Qwen3-30B-A3B with EP + alltoall is
    usually bound by the all-to-all and expert GEMMs, so a neutral result is
    expected (Bridge measured 42.00 s graphs vs 41.36 s eager on this shape).
  * If the delta is inside the spread, call it neutral and keep graphs off.
"""
import re
import statistics
import sys

PAT = re.compile(r"iteration\s+(\d+)/\s*\d+.*?elapsed time per iteration \(ms\):\s*([\d.]+)")
SKIP_FIRST = 1  # first iteration = capture / startup


def step_times(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = PAT.search(line)
            if m:
                out[int(m.group(1))] = float(m.group(2))
    return [t for it, t in sorted(out.items()) if it > SKIP_FIRST]


def summarize(name, xs):
    med = statistics.median(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    print(f"{name:7s} n={len(xs):3d}  median={med:10.1f} ms  mean={statistics.mean(xs):10.1f} ms  sd={sd:8.1f}")
    return med


def main():
    eager, graphs = step_times(sys.argv[1]), step_times(sys.argv[2])
    n = min(len(eager), len(graphs))
    e = summarize("eager", eager[:n])
    g = summarize("graphs", graphs[:n])
    print(f"speedup (eager/graphs): {e / g:.3f}x")
    if abs(e - g) / e < 0.02:
        print("-> within ~2%: neutral. The step is not launch-bound; profile eager "
              "(nsys) before spending more time on graph scopes.")


if __name__ == "__main__":
    main()

# Next steps if it's neutral:
#  - nsys profile 2-3 eager steps: look for host gaps between kernels vs long
#    NCCL all-to-all ranges.
#  - Check for fallbacks: HybridEP/flex without a static budget, FP8 quantize
#    kernels outside the scope, dropless routing syncs.
#  - A/B a narrower scope (cuda_graph_modules=[moe_router, moe_preprocess]) vs
#    the current attn+moe_router+moe_preprocess, and redo the A/B after any
#    dispatcher/overlap/precision change.
