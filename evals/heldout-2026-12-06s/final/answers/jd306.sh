#!/usr/bin/env bash
# compare_steps.sh -- is the CUDA-graph run really slower than eager?
#
#   ./compare_steps.sh eager.log graph.log
#
# Background (why "captured fine, not faster" is common for Qwen3-30B-A3B):
#   * Graphs only remove CPU launch overhead. A step that is bound by the all-to-all
#     dispatch or by the grouped-GEMM experts has little launch overhead to remove, and the
#     TE scopes that are legal for dropless MoE (moe_router, moe_preprocess, attn) leave
#     dispatch/experts/combine eager anyway. NVIDIA's own note for this model on H100:
#     42.00 s/step graphed vs 41.36 s eager (Megatron-Bridge PR #3868).
#   * Check for silent fallbacks: HybridEP without a static budget falls back to the synced
#     path, FP8 quantization kernels still launch eagerly, "graphable layers" must be > 0 on
#     every PP stage.
#   * Profile the eager run with nsys: host gaps between kernels = launch-bound (graphs help);
#     a timeline full of NCCL a2a / long GEMMs = they won't.
#
# Timing: TE graphs are captured inside the first training iteration, so iteration 1 carries
# the 6.9 s capture and must be excluded. Everything from iteration 2 on is replay.
# Use --log-interval 1 so each line is one iteration.

set -euo pipefail
EAGER=${1:?eager log}
GRAPH=${2:?graph log}
FIRST_STEADY=2   # skip iteration 1 (capture)

steady_mean() {
  sed -nE 's/.*iteration +([0-9]+)\/.*elapsed time per iteration \(ms\): ([0-9.]+).*/\1 \2/p' "$1" \
    | awk -v first="$FIRST_STEADY" '$1 >= first {s += $2; n++} END {if (n) printf "%.1f %d\n", s/n, n; else print "nan 0"}'
}

read -r e_ms e_n < <(steady_mean "$EAGER")
read -r g_ms g_n < <(steady_mean "$GRAPH")

echo "eager : ${e_ms} ms/iter over ${e_n} iterations"
echo "graph : ${g_ms} ms/iter over ${g_n} iterations"
awk -v e="$e_ms" -v g="$g_ms" 'BEGIN {printf "speedup (eager/graph): %.3fx\n", e/g}'

# Rule of thumb: within +/-2% is noise -> graphs are neutral for this step, leave
# cuda_graph_impl="none". Re-run this after any dispatcher/overlap/precision change.
