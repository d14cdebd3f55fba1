#!/usr/bin/env python3
"""Compare eager vs CUDA-graph step time from two Megatron/Bridge training logs.

Your capture looks healthy (48 graphable layers, ~6.9 s capture), so the next step is a clean
apples-to-apples number. The script below parses the standard
`iteration N/ M | ... | elapsed time per iteration (ms): X | ...` lines and compares the mean
step time after warmup.

Notes on interpreting it for Qwen3-30B-A3B:
  * cuda_graph_warmup_steps defaults to 3, so iterations 1-2 are the real warmup (allocator,
    NCCL communicators, autotuning). We skip those in BOTH logs so the comparison is symmetric.
  * Graphs only remove CPU launch overhead. An all-to-all dropless MoE step is mostly
    communication + grouped GEMM, so a neutral result is common (Bridge saw 42.00 s vs 41.36 s
    eager for this shape). If the ratio is ~1.0, graphs just aren't buying anything here.
  * If graphed is clearly slower, profile with nsys and look for the MoE dispatcher falling back
    to a host-syncing path, or FP8 quantize kernels still running eagerly.

Usage:  python compare_steps.py eager.log graph.log
"""
import re
import statistics
import sys

ITER_RE = re.compile(
    r"iteration\s+(\d+)/\s*\d+\s*\|.*?elapsed time per iteration \(ms\):\s*([\d.]+)"
)
SKIP_FIRST = 2  # warmup iterations to drop (both runs)
LAST = 12       # compare iterations 3..12


def step_times(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = ITER_RE.search(line)
            if m:
                out[int(m.group(1))] = float(m.group(2))
    return [ms for it, ms in sorted(out.items()) if SKIP_FIRST < it <= LAST]


def main():
    eager, graph = step_times(sys.argv[1]), step_times(sys.argv[2])
    if not eager or not graph:
        sys.exit("no iteration lines found (is log_interval=1?)")
    e, g = statistics.mean(eager), statistics.mean(graph)
    print(f"eager : mean {e:9.1f} ms over {len(eager)} iters")
    print(f"graph : mean {g:9.1f} ms over {len(graph)} iters")
    print(f"speedup (eager/graph): {e / g:.3f}x")
    if e / g < 1.0:
        print("graphed run is slower -> check for fallbacks/host syncs before keeping graphs on")


if __name__ == "__main__":
    main()
