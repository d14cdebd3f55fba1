#!/usr/bin/env python3
"""Eager vs CUDA-graph A/B for a small GPT on one H200, with bootstrap CIs.

If you have this skill's helpers installed, `skill-tools bench --json --config <cfg>`
does the same thing. This script is the transparent version: it launches Megatron-LM's
pretrain_gpt.py three times (eager, full-iteration graph, TE attn+mlp graphs) with
identical settings, parses "elapsed time per iteration (ms)" from each log, and
compares the mean step time with a bootstrap 95% CI on the speedup.

Usage:
    python ab_graphs.py --base-args "$(cat my_small_gpt.args)" --iters 60 --trials 3
"""

import argparse
import random
import re
import shlex
import statistics
import subprocess

ITER_RE = re.compile(r"iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([0-9.]+)")

VARIANTS = {
    "eager": [],
    "full_iteration": [
        "--cuda-graph-impl", "full_iteration",
        "--no-check-for-nan-in-loss-and-grad",
        "--te-rng-tracker",
    ],
    "te:attn+mlp": [
        "--cuda-graph-impl", "transformer_engine",
        "--cuda-graph-modules", "attn", "mlp",
        "--te-rng-tracker",
    ],
}

# Iteration 1 pays for cuDNN/cuBLAS autotuning, NCCL init and allocator growth in
# both runs. Drop it; everything after that is steady state for both variants.
SKIP_FIRST = 1


def run(variant, base_args, iters, trial):
    cmd = (
        ["torchrun", "--nproc-per-node", "1", "pretrain_gpt.py"]
        + shlex.split(base_args)
        + ["--train-iters", str(iters), "--log-interval", "1", "--seed", "1234"]
        + VARIANTS[variant]
    )
    log = f"ab-{variant.replace(':', '_').replace('+', '_')}-t{trial}.log"
    with open(log, "w") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=True)
    times = []
    for line in open(log):
        m = ITER_RE.search(line)
        if m and int(m.group(1)) > SKIP_FIRST:
            times.append(float(m.group(2)))
    return times


def bootstrap_ratio_ci(a, b, n=5000, alpha=0.05):
    """CI of mean(a)/mean(b) by resampling steps independently."""
    ratios = []
    for _ in range(n):
        ra = [random.choice(a) for _ in a]
        rb = [random.choice(b) for _ in b]
        ratios.append(statistics.fmean(ra) / statistics.fmean(rb))
    ratios.sort()
    return ratios[int(n * alpha / 2)], ratios[int(n * (1 - alpha / 2)) - 1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base-args", required=True)
    p.add_argument("--iters", type=int, default=60)
    p.add_argument("--trials", type=int, default=3)
    a = p.parse_args()

    steps = {v: [] for v in VARIANTS}
    for t in range(a.trials):
        for v in VARIANTS:  # interleave variants so drift hits all of them equally
            steps[v] += run(v, a.base_args, a.iters, t)

    eager = steps["eager"]
    print(f"{'variant':<16}{'mean ms':>10}{'speedup':>10}   95% CI")
    for v, s in steps.items():
        sp = statistics.fmean(eager) / statistics.fmean(s)
        lo, hi = bootstrap_ratio_ci(eager, s)
        print(f"{v:<16}{statistics.fmean(s):>10.2f}{sp:>9.2f}x   [{lo:.2f}, {hi:.2f}]")

    # Reading it: a CI whose lower bound is above 1.0 is a real speedup; a CI that
    # spans 1.0 means no measurable difference. Also eyeball loss in the logs:
    # graphed loss should match eager to bf16 noise.
    # If the speedup is small, profile eager (nsys) to see whether the step is launch-bound.


if __name__ == "__main__":
    main()
