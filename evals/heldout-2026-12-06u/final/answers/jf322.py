"""Eager vs CUDA-graph A/B for a small GPT config on one H200, with proper statistics.

`skill-tools bench` does this on a proxy model; to measure *your* config end to end, run the
same launch twice (only the graph flags differ) and compare the logs with this script.

    # eager
    torchrun --nproc-per-node 1 pretrain_gpt.py $COMMON --log-interval 1 > eager.log 2>&1
    # graphed (0.19): full iteration, NaN check off, TE RNG tracker
    torchrun --nproc-per-node 1 pretrain_gpt.py $COMMON --log-interval 1 \
        --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker \
        > graph.log 2>&1

Use the same seed, data, micro/global batch and sequence length in both; train ~100 iterations
so the interval is tight, and repeat each run 2-3 times if you can (host time drifts between
processes).

    python ab_stats.py eager.log graph.log
"""
import math
import random
import re
import statistics
import sys

ITER_RE = re.compile(
    r"iteration\s+(\d+)/\s*\d+\s*\|.*?elapsed time per iteration \(ms\):\s*([\d.]+)"
)
LOSS_RE = re.compile(r"lm loss:\s*([\d.Ee+-]+)")

# Iteration 1 carries process start-up (allocator growth, NCCL init, autotuning); drop it so it
# doesn't dominate the mean. Everything after that is representative training time.
SKIP_FIRST = 1


def parse(path):
    times, losses = {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            m = ITER_RE.search(line)
            if not m:
                continue
            it, ms = int(m.group(1)), float(m.group(2))
            times[it] = ms
            lm = LOSS_RE.search(line)
            if lm:
                losses[it] = float(lm.group(1))
    return times, losses


def window(times):
    return [ms for it, ms in sorted(times.items()) if it > SKIP_FIRST]


def mean_ci(xs, z=1.96):
    m = statistics.fmean(xs)
    s = statistics.stdev(xs) if len(xs) > 1 else 0.0
    half = z * s / math.sqrt(len(xs)) if xs else float("nan")
    return m, s, (m - half, m + half)


def bootstrap_speedup(eager, graph, n=5000, seed=0):
    rng = random.Random(seed)
    ratios = []
    for _ in range(n):
        e = statistics.fmean(rng.choices(eager, k=len(eager)))
        g = statistics.fmean(rng.choices(graph, k=len(graph)))
        ratios.append(e / g)
    ratios.sort()
    return ratios[int(0.025 * n)], ratios[int(0.975 * n)]


def main(eager_log, graph_log):
    et, el = parse(eager_log)
    gt, gl = parse(graph_log)
    e, g = window(et), window(gt)
    if len(e) < 10 or len(g) < 10:
        sys.exit("need at least ~10 timed iterations per run")

    em, es, eci = mean_ci(e)
    gm, gs, gci = mean_ci(g)
    lo, hi = bootstrap_speedup(e, g)
    print(f"eager : {em:8.2f} ms/iter  std {es:6.2f}  95% CI [{eci[0]:.2f}, {eci[1]:.2f}]  n={len(e)}")
    print(f"graph : {gm:8.2f} ms/iter  std {gs:6.2f}  95% CI [{gci[0]:.2f}, {gci[1]:.2f}]  n={len(g)}")
    print(f"speedup {em / gm:.2f}x  bootstrap 95% CI [{lo:.2f}, {hi:.2f}]")

    common = sorted(set(el) & set(gl))
    if common:
        d = max(abs(el[i] - gl[i]) for i in common)
        print(f"max |loss delta| over {len(common)} iterations: {d:.2e}  (bf16 noise ~1e-3)")

    if lo > 1.0:
        print("verdict: graphs are faster (CI above 1.0)")
    elif hi < 1.0:
        print("verdict: graphs are slower")
    else:
        print("verdict: no measurable difference (CI spans 1.0)")


if __name__ == "__main__":
    main(*sys.argv[1:3])
