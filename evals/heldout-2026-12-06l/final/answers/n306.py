# Compare eager vs CUDA-graph step time for the Qwen3-30B-A3B runs from the Megatron/Bridge logs.
# Usage: python compare_steps.py eager.log graph.log
#
# Log lines look like:
#   [2026-...] iteration        5/      20 | ... | elapsed time per iteration (ms): 41360.2 | ...
#
# Why a parser instead of eyeballing: a single iteration is noisy, so we average the whole run
# for both jobs. The capture cost (6.9 s for 48 layers) is part of what the graph run really
# costs you, so it stays in the average - otherwise the graph run gets an unfair discount.

import re
import sys

import pandas as pd

PAT = re.compile(r"iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([\d.]+)")


def load(path: str, label: str) -> pd.DataFrame:
    rows = []
    with open(path) as f:
        for line in f:
            m = PAT.search(line)
            if m:
                rows.append({"run": label, "iter": int(m.group(1)), "ms": float(m.group(2))})
    return pd.DataFrame(rows)


eager = load(sys.argv[1], "eager")
graph = load(sys.argv[2], "graph")
df = pd.concat([eager, graph])

# mean over all logged iterations (1..N) of each run, warmup and capture step included
summary = df.groupby("run")["ms"].agg(["count", "mean", "std"])
print(summary)

speedup = summary.loc["eager", "mean"] / summary.loc["graph", "mean"]
print(f"speedup eager/graph = {speedup:.3f}x")

# Reading the result:
# - speedup >= 1.05: graphs pay off, keep them.
# - ~1.0 or below: the run is not launch-bound. Qwen3-30B-A3B with the alltoall dispatcher is
#   dominated by dispatch/combine and expert GEMMs; Bridge's docs report the same shape as neutral
#   (42.00 s graph vs 41.36 s eager). Profile 2-3 eager steps with nsys: a dense GPU timeline
#   means there is no launch overhead to remove.
# - Also check for eager fallbacks inside the step (HybridEP without a static budget, FP8
#   quantization kernels outside the graph) and A/B the scope:
#   cuda_graph_modules=[moe_router, moe_preprocess] vs [attn, moe_router, moe_preprocess]
#   (cuda_graph_scope on mcore 0.16/0.17), use_te_rng_tracker=True in both.
