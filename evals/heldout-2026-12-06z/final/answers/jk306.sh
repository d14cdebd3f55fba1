#!/usr/bin/env bash
# Quick check: is the graph run really no faster than eager?
#
# Nothing is necessarily broken. Qwen3-30B-A3B with the alltoall dispatcher is
# mostly expert-GEMM / all-to-all bound, and CUDA graphs only remove CPU launch
# overhead, so TE-scoped graphs (attn + moe_router + moe_preprocess) are often
# neutral on this model. Bridge's docs report this exact shape: 48 graphable
# layers, ~6.9 s capture, 42.00 s vs 41.36 s eager.
#
# What you want is a fair steady-state comparison. With cuda_graph_warmup_steps=3
# the three warmup steps are iterations 1-3 and the capture happens at the end
# of warmup, so from iteration 4 on everything is replay. Average iterations 4-N
# of the graph log against the same iterations of the eager log.
#
# Usage: ./cmp_steps.sh eager.log graph.log [last_iter]

set -euo pipefail
EAGER=$1; GRAPH=$2; LAST=${3:-20}
FIRST=4   # first replay iteration (warmup=3)

avg() {
  grep -oP 'iteration\s+\K\d+/.*?elapsed time per iteration \(ms\): [0-9.]+' "$1" \
  | awk -v a="$FIRST" -v b="$LAST" '{
      split($1, it, "/"); n = it[1] + 0
      if (n >= a && n <= b) { s += $NF; c++ }
    } END { if (c) printf "%.1f ms over %d iters\n", s / c, c; else print "no iterations" }'
}

echo "eager: $(avg "$EAGER")"
echo "graph: $(avg "$GRAPH")"

# Then:
#  - nsys profile 2-3 eager iterations: few host gaps => nothing for graphs to win.
#  - confirm nothing falls back to a syncing/dynamic path (HybridEP without a
#    static budget, FP8 quantize kernels outside the graph).
#  - A/B narrower scopes (attn only / moe_router+moe_preprocess only) and redo
#    the A/B after any dispatcher/overlap/precision change.
#  - skill-tools bench runs the same A/B with bootstrap CIs if you want numbers
#    you can defend.
