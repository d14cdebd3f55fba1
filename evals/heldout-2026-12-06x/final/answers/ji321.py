#!/usr/bin/env python3
"""ab_graphs.py: eager vs CUDA-graph A/B for a small GPT on one H200.

If you have the skill's helper installed, `skill-tools bench --json` does this for you
(eager vs each variant, medians with bootstrap CIs). This script is the standalone
equivalent for your own config through Megatron-LM's pretrain_gpt.py.

    python ab_graphs.py --trials 3 --iters 60
"""

import argparse
import random
import re
import statistics
import subprocess

MODEL = [
    "--num-layers", "8", "--hidden-size", "1024", "--num-attention-heads", "16",
    "--seq-length", "1024", "--max-position-embeddings", "1024",
    "--micro-batch-size", "2", "--global-batch-size", "2",
    "--lr", "1e-4", "--bf16", "--transformer-impl", "transformer_engine",
    "--mock-data", "--tokenizer-type", "NullTokenizer", "--vocab-size", "32000",
    "--seed", "1234", "--log-interval", "1", "--eval-iters", "0",
]

VARIANTS = {
    "eager": [],
    "full_iteration": [
        "--cuda-graph-impl", "full_iteration",
        "--no-check-for-nan-in-loss-and-grad",
        "--te-rng-tracker",
    ],
    "te_attn_mlp": [
        "--cuda-graph-impl", "transformer_engine",
        "--cuda-graph-modules", "attn", "mlp",
        "--te-rng-tracker",
    ],
}

WARMUP = 3  # == --cuda-graph-warmup-steps default; these eager steps are dropped for every variant
ITER_RE = re.compile(r"elapsed time per iteration \(ms\): ([0-9.]+)")


def run_once(extra, iters):
    cmd = ["torchrun", "--nproc-per-node", "1", "pretrain_gpt.py", *MODEL,
           "--train-iters", str(iters), *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    times = [float(t) for t in ITER_RE.findall(out)]
    # drop the warmup iterations; everything after them is graph replay (or plain eager)
    return times[WARMUP:]


def bootstrap_ci(xs, stat=statistics.mean, n=2000, alpha=0.05):
    boots = sorted(stat(random.choices(xs, k=len(xs))) for _ in range(n))
    return boots[int(n * alpha / 2)], boots[int(n * (1 - alpha / 2)) - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--iters", type=int, default=60)
    a = ap.parse_args()

    samples = {}
    for name, extra in VARIANTS.items():
        xs = []
        for _ in range(a.trials):  # separate processes: host noise differs run to run
            xs += run_once(extra, a.iters)
        samples[name] = xs

    base = statistics.mean(samples["eager"])
    print(f"{'variant':16s} {'mean ms':>9s} {'95% CI':>20s} {'speedup':>8s}")
    for name, xs in samples.items():
        m = statistics.mean(xs)
        lo, hi = bootstrap_ci(xs)
        print(f"{name:16s} {m:9.2f} [{lo:8.2f}, {hi:8.2f}] {base / m:7.2f}x")
    print("\nRead the CI, not the point estimate: if a variant's CI overlaps eager's, "
          "there is no measurable speedup. Before trusting a win, also check that the "
          "loss matches eager step for step at the same seed.")


if __name__ == "__main__":
    main()

# Is the run launch-bound in the first place? Profile one eager step
# (nsys profile --capture-range=cudaProfilerApi ...) or use `skill-tools precheck`:
# a GPU that is mostly idle between kernels is where graphs pay off.
