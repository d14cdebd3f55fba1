#!/usr/bin/env bash
# Not necessarily broken. Qwen3-30B-A3B with the alltoall dispatcher is mostly
# expert GEMMs + all-to-all traffic; TE-scoped graphs (attn/moe_router/
# moe_preprocess) only remove CPU launch overhead for the captured pieces, so a
# neutral result is plausible (Bridge's own docs report ~42.0 s graphed vs
# ~41.4 s eager on this shape). Before concluding anything, compare the two logs
# the same way. This script pulls the per-iteration times Megatron prints and
# compares the means.
#
# usage: ./compare_iters.sh eager.log graph.log
set -euo pipefail

EAGER_LOG=${1:?eager log}
GRAPH_LOG=${2:?graph log}

# Skip iteration 1 (allocator growth, NCCL communicator init, autotuning) and
# average the next 5 iterations. That's enough to see a launch-overhead effect
# and keeps both runs short.
FIRST=2
LAST=6

extract() {
  grep -oP 'elapsed time per iteration \(ms\): \K[0-9.]+' "$1" \
    | sed -n "${FIRST},${LAST}p"
}

mean() { awk '{s+=$1; n++} END {if (n) printf "%.1f\n", s/n; else print "nan"}'; }

e=$(extract "$EAGER_LOG" | mean)
g=$(extract "$GRAPH_LOG" | mean)

echo "eager  iters ${FIRST}-${LAST}: ${e} ms"
echo "graphs iters ${FIRST}-${LAST}: ${g} ms"
awk -v e="$e" -v g="$g" 'BEGIN { printf "speedup: %.3fx\n", e/g }'

# How to read it:
#  * speedup < ~1.03x  -> the step is not launch-bound. Profile eager with
#    nsys (look at GPU idle gaps between kernels); if the GPU is >90% busy,
#    graphs have nothing to remove.
#  * Check for silent fallbacks that keep the host in the loop: HybridEP/flex
#    dispatch without a static token budget, FP8 quantize/amax kernels outside
#    the graph, 'Rank N: 0 graphable layers.' on some PP stage.
#  * A/B narrower vs wider scope (moe_router,moe_preprocess vs
#    attn,moe_router,moe_preprocess) and repeat after any dispatcher/overlap/
#    precision change.
#  * If it stays neutral, leave cuda_graph_impl=none and save the memory.
