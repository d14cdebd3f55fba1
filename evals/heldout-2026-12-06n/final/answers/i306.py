"""graph_vs_eager.py — quick check for 'captured but not faster' (Qwen3-30B-A3B).

Short version of what's going on: graphs only remove CPU launch overhead. A 30B-A3B MoE with
alltoall dispatch is mostly comm/GEMM-bound, so graphs are often neutral here (Bridge measured
42.00 s graph vs 41.36 s eager on this shape). Also check that replay is really active and that
nothing dynamic (HybridEP without a static budget, FP8 quantization kernels, dispatcher syncs)
still runs outside the graph. Try attn vs moe_router+moe_preprocess as separate arms, and profile an
eager step to see whether there are host gaps to win at all.

This script parses 'elapsed time per iteration (ms)' from the two Megatron logs and compares them.
"""
import re
import statistics
import sys

PAT = re.compile(r"iteration\s+(\d+)/.*?elapsed time per iteration \(ms\):\s*([\d.]+)")


def step_times(path, first_iter=1, last_iter=50):
    out = []
    with open(path) as f:
        for line in f:
            m = PAT.search(line)
            if m and first_iter <= int(m.group(1)) <= last_iter:
                out.append(float(m.group(2)))
    return out


eager = step_times(sys.argv[1])
graph = step_times(sys.argv[2])
# use the same window (iterations 1..50) for both runs so the comparison is apples to apples
e, g = statistics.mean(eager), statistics.mean(graph)
print(f"eager mean {e:.1f} ms  graph mean {g:.1f} ms  speedup {e / g:.3f}x")
if e / g < 1.02:
    print("no meaningful speedup -> keep cuda_graph_impl=none for this model")
