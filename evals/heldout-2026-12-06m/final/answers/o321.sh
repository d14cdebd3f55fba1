#!/usr/bin/env bash
# Eager vs CUDA-graph A/B for a small GPT on ONE H200, with proper statistics.
#
# `skill-tools bench --config train_small_gpt.sh --nproc 1` automates exactly this
# (interleaved trials, warmup + capture excluded, median + bootstrap CI). This is the
# explicit version so you can see/adjust every knob and reuse it on the cluster.
#
# Design:
#  - identical flags except the graph flags; same seed, mock data, same GPU
#  - 3 eager warmup iterations (cuda_graph_warmup_steps=3), capture on iter 4;
#    we discard iterations 1..5 in BOTH variants and time 6..45
#  - 3 interleaved trials per variant (E G E G E G) to average out clock/thermal drift
#  - per-iteration times from Megatron's "elapsed time per iteration (ms)" log
#  - median per variant + 95% bootstrap CI of the speedup ratio
set -euo pipefail

MLM=${MLM:-/opt/Megatron-LM}
OUT=${OUT:-ab_out}; mkdir -p "$OUT"
ITERS=45; SKIP=5; TRIALS=3

BASE=(
  --num-layers 12 --hidden-size 768 --num-attention-heads 12
  --seq-length 1024 --max-position-embeddings 1024
  --micro-batch-size 4 --global-batch-size 4
  --train-iters $ITERS --lr 3e-4 --lr-decay-style constant --bf16
  --mock-data --tokenizer-type NullTokenizer --vocab-size 32000
  --transformer-impl transformer_engine
  --log-interval 1 --eval-iters 0 --eval-interval 100000 --split 99,1,0 --seed 1234
)
EAGER=(--cuda-graph-impl none)
GRAPH=(--cuda-graph-impl full_iteration --cuda-graph-warmup-steps 3 --te-rng-tracker)

run() {  # $1 name, rest: extra flags
  local name=$1; shift
  torchrun --nproc_per_node 1 "$MLM/pretrain_gpt.py" "${BASE[@]}" "$@" > "$OUT/$name.log" 2>&1
  awk -v skip=$SKIP '/elapsed time per iteration \(ms\)/ {
        match($0, /iteration +[0-9]+/); it = substr($0, RSTART+9, RLENGTH-9) + 0
        match($0, /elapsed time per iteration \(ms\): [0-9.]+/)
        t = substr($0, RSTART+36, RLENGTH-36)
        if (it > skip) print t }' "$OUT/$name.log" > "$OUT/$name.ms"
  echo "$name: $(wc -l < "$OUT/$name.ms") timed iterations"
}

for t in $(seq 1 $TRIALS); do
  run "eager_$t" "${EAGER[@]}"
  run "graph_$t" "${GRAPH[@]}"
done

cat "$OUT"/eager_*.ms > "$OUT/eager.all"; cat "$OUT"/graph_*.ms > "$OUT/graph.all"

python3 - "$OUT/eager.all" "$OUT/graph.all" <<'PY'
import random, statistics, sys
e = [float(x) for x in open(sys.argv[1])]
g = [float(x) for x in open(sys.argv[2])]
me, mg = statistics.median(e), statistics.median(g)
random.seed(0)
boots = sorted(
    statistics.median(random.choices(e, k=len(e))) / statistics.median(random.choices(g, k=len(g)))
    for _ in range(5000)
)
lo, hi = boots[int(0.025 * len(boots))], boots[int(0.975 * len(boots))]
print(f"eager  median {me:8.2f} ms  (n={len(e)})")
print(f"graphs median {mg:8.2f} ms  (n={len(g)})")
print(f"speedup {me/mg:.3f}x  95% CI [{lo:.3f}, {hi:.3f}]")
print("verdict:", "faster" if lo > 1.0 else "slower" if hi < 1.0 else "no significant difference")
PY

# Also check peak memory in the logs (graph pools stay resident), and whether the
# eager run is launch-bound in the first place: `skill-tools precheck --config
# train_small_gpt.sh` profiles eager steps and predicts whether graphs can pay off.
# Judge by the CI, not by a single iteration.
