#!/usr/bin/env bash
# compare_step_time.sh — eager vs CUDA-graph step time from two Megatron/Bridge logs
#
# usage: ./compare_step_time.sh eager.log graph.log
#
# Why this exists: "captured fine but not faster" is usually a measurement problem first.
# The first logged iteration of a graph run carries the one-off work (TE graph warmup + the
# 6.9 s capture on your Qwen3-30B-A3B run), so it must not be averaged in. Everything after it
# is replay, so we drop iteration 1 and compare the rest.
#
# If the numbers still match after that, nothing is broken: graphs only remove CPU launch
# overhead. A dropless all-to-all MoE step with attn+moe_router+moe_preprocess graphed keeps
# dispatch, experts and combine eager, and is usually bound by all-to-all / expert GEMMs, so
# "neutral" is an expected result (Bridge's docs list the same shape: 42.00 s vs 41.36 s eager).
# Next steps if you want to dig: nsys-profile a few eager steps and look for host gaps between
# kernels; make sure HybridEP/FP8 paths aren't falling back to host-synced code; A/B a narrower
# or wider scope.

set -euo pipefail

EAGER_LOG=${1:?eager log}
GRAPH_LOG=${2:?graph log}
SKIP=1   # iterations to drop from the start of each log (capture lands in iteration 1)

extract() {
  # Megatron prints: " iteration        7/     100 | ... | elapsed time per iteration (ms): 41360.2 | ..."
  grep -E "iteration +[0-9]+/" "$1" \
    | sed -E 's/.*iteration +([0-9]+)\/.*elapsed time per iteration \(ms\): ([0-9.]+).*/\1 \2/'
}

summarize() {
  local name=$1 log=$2
  extract "$log" | awk -v skip="$SKIP" -v name="$name" '
    $1 > skip { v[n++] = $2; s += $2 }
    END {
      if (n == 0) { print name ": no iterations after skip"; exit 1 }
      asort(v)
      med = (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
      printf "%-6s n=%-4d mean=%10.1f ms  median=%10.1f ms\n", name, n, s/n, med
      print med > "/tmp/_med_" name
    }'
}

summarize eager "$EAGER_LOG"
summarize graph "$GRAPH_LOG"

E=$(cat /tmp/_med_eager); G=$(cat /tmp/_med_graph)
awk -v e="$E" -v g="$G" 'BEGIN { printf "speedup (eager/graph, medians): %.3fx\n", e/g }'

# Sanity checks worth eyeballing in the graph log:
grep -m1 -E "graphable layers" "$GRAPH_LOG" || echo "WARN: no 'graphable layers' line"
grep -m1 -E "Time spent in CUDA Graphs capture" "$GRAPH_LOG" || echo "WARN: no capture-time line"
grep -m1 -E "No graphable layers found" "$GRAPH_LOG" && echo "WARN: some rank ran eager"
