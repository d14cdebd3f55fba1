#!/usr/bin/env bash
# bench_graphs.sh - eager vs CUDA-graph A/B for the small GPT config on one H200.
#
# Uses the skill harness to launch matched runs (same config/seed/data, only the graph
# flags differ, several interleaved trials), then summarises step time straight from the
# Megatron logs so the numbers are the same ones you'd see in a normal training job.
#
#   ./bench_graphs.sh train_small_gpt.sh
set -euo pipefail

CONFIG=${1:-train_small_gpt.sh}
OUT=${OUT:-bench-out}

# 0) is the step launch-bound at all? (profiles eager steps, predicts whether graphs pay)
skill-tools precheck --workload dense --size small --out "$OUT/precheck" || true

# 1) matched A/B on your model's layer shape: eager, full_iteration, te:attn+mlp
skill-tools bench --config "$CONFIG" --out "$OUT" --steps 40 --trials 3

# 2) summarise from the raw Megatron logs.
#    Megatron logs "elapsed time per iteration (ms): X" every step (--log-interval 1).
#    Iteration 1 is the slow one (graph capture happens on the first step, plus
#    allocator/NCCL warmup), so drop it and average the rest.
echo
printf '%-28s %8s %10s\n' variant iters mean_ms
for log in "$OUT"/*/logs/*.log; do
  name=$(basename "$log" .log)
  grep -o 'elapsed time per iteration (ms): [0-9.]*' "$log" \
    | awk -v n="$name" 'NR>1 {s+=$NF; c++} END {if (c) printf "%-28s %8d %10.2f\n", n, c, s/c}'
done

# 3) reading it: speedup = eager mean / graph mean. Anything > ~1.03 on a small GPT is a
#    real win; the harness's own JSON in $OUT has medians + bootstrap CIs if you want the
#    error bars as well.
