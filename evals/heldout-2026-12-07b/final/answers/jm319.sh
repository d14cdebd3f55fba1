#!/usr/bin/env bash
# Eager vs CUDA-graph A/B for a small GPT config on one H200, with median + bootstrap CI.
#
# Plan: two Megatron-LM runs that differ ONLY in the graph flags (same seed, same mock data, same
# shapes), 3 interleaved trials each, per-iteration timing, then median step time and a bootstrap
# 95% CI on the speedup. Graph run uses --cuda-graph-warmup-steps 0: capture happens on the very
# first iteration, so after dropping iteration 1 every logged iteration is a replay and the two
# runs can be compared over the same iteration range without eager warmup steps diluting the
# graph numbers.
#
# (If you'd rather not hand-roll this: `skill-tools bench --config my_gpt.yaml` runs the same kind
#  of A/B; and `skill-tools precheck --workload dense --size small --json` first tells you from an
#  eager profile whether the step is launch-bound enough for graphs to matter at all.)
set -euo pipefail

MODEL_ARGS="--num-layers 12 --hidden-size 768 --num-attention-heads 12 --seq-length 1024 \
  --max-position-embeddings 1024 --micro-batch-size 4 --global-batch-size 4 --bf16 \
  --mock-data --tokenizer-type NullTokenizer --vocab-size 32768 --transformer-impl transformer_engine \
  --lr 1e-4 --lr-decay-style constant --train-iters 60 --log-interval 1 --log-throughput \
  --eval-iters 0 --eval-interval 100000 --seed 1234"

GRAPH_ARGS="--cuda-graph-impl full_iteration --cuda-graph-warmup-steps 0 \
  --te-rng-tracker --no-check-for-nan-in-loss-and-grad"

mkdir -p ab
for trial in 1 2 3; do
  torchrun --nproc-per-node 1 pretrain_gpt.py $MODEL_ARGS                 2>&1 | tee ab/eager_$trial.log
  torchrun --nproc-per-node 1 pretrain_gpt.py $MODEL_ARGS $GRAPH_ARGS     2>&1 | tee ab/graph_$trial.log
done

grep -q "CUDA graph capture done for training" ab/graph_1.log || { echo "no capture in graph run"; exit 1; }

python3 - <<'PY'
import glob, re, random, statistics as st

pat = re.compile(r"iteration\s+(\d+)/.*?elapsed time per iteration \(ms\):\s*([\d.]+)")

def step_ms(files):
    out = []
    for f in files:
        for line in open(f):
            m = pat.search(line)
            if m and int(m.group(1)) > 1:        # drop iteration 1 (capture / first-step init)
                out.append(float(m.group(2)))
    return out

eager = step_ms(sorted(glob.glob("ab/eager_*.log")))
graph = step_ms(sorted(glob.glob("ab/graph_*.log")))

random.seed(0)
boot = []
for _ in range(5000):
    e = st.median(random.choices(eager, k=len(eager)))
    g = st.median(random.choices(graph, k=len(graph)))
    boot.append(e / g)
boot.sort()
lo, hi = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot))]

print(f"eager median {st.median(eager):.2f} ms  (n={len(eager)})")
print(f"graph median {st.median(graph):.2f} ms  (n={len(graph)})")
print(f"speedup {st.median(eager)/st.median(graph):.2f}x  95% CI [{lo:.2f}, {hi:.2f}]")
print("verdict:", "faster" if lo > 1.0 else ("slower" if hi < 1.0 else "no measurable difference"))
PY

# Also diff the loss columns of eager_1.log and graph_1.log: with the same seed they should agree
# to bf16 noise (~1e-3) step for step.
