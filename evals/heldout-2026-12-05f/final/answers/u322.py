#!/usr/bin/env python3
"""graph_ab.py: do CUDA graphs speed up my small GPT config on one H200? (eager vs graph)

Stage 1 is the skill's helpers: precheck (is the eager step launch-bound at all?) and
bench (matched eager-vs-graph A/B on one config, medians, bootstrap CIs, memory).
Stage 2 checks the answer on your real training loop from two logs (eager, graph) of
the same config and makes the final call.

    python graph_ab.py --config my_gpt.yaml --eager-log eager.log --graph-log graph.log
"""
import argparse
import json
import random
import re
import statistics
import subprocess
import sys


def helper(*args):
    proc = subprocess.run(["skill-tools", *args, "--json"], capture_output=True, text=True)
    if proc.returncode == 2:
        sys.exit(proc.stdout or proc.stderr)
    return json.loads(proc.stdout)


def iteration_times_ms(path):
    """Per-iteration elapsed time from Megatron/Bridge log lines."""
    pat = re.compile(r"iteration\s+(\d+)/.*?elapsed time per iteration \(ms\):\s*([0-9.]+)")
    with open(path, errors="ignore") as f:
        return [float(ms) for _, ms in pat.findall(f.read())]


def bootstrap_ratio_ci(a, b, n=5000, seed=0):
    rng = random.Random(seed)
    ratios = sorted(
        statistics.mean(rng.choices(a, k=len(a))) / statistics.mean(rng.choices(b, k=len(b)))
        for _ in range(n)
    )
    return ratios[int(0.025 * n)], ratios[int(0.975 * n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--eager-log", required=True)
    ap.add_argument("--graph-log", required=True)
    ap.add_argument("--warmup", type=int, default=3, help="cuda_graph_warmup_steps of the graph run")
    args = ap.parse_args()

    # Stage 1: launch-boundness, then the matched A/B.
    pre = helper("precheck", "--workload", "dense", "--size", "small")
    print("precheck:", json.dumps(pre, indent=1)[:2000])
    bench = helper("bench", "--config", args.config)
    for v in bench.get("variants", []):
        print(f"bench {v.get('name', '?'):24s} captured={v.get('captured')} replayed={v.get('replayed')} "
              f"speedup={v.get('speedup_vs_eager')} loss_delta={v.get('loss_max_abs_delta')}")

    # Stage 2: your real loop. Skip the eager warmup steps; from then on every graph-run
    # iteration counts, *including* the capture iteration: capture is a real cost you pay
    # in every job, so leaving it out would flatter the graph run.
    eager = iteration_times_ms(args.eager_log)[args.warmup:]
    graph = iteration_times_ms(args.graph_log)[args.warmup:]
    n = min(len(eager), len(graph))
    eager, graph = eager[:n], graph[:n]
    if n < 20:
        sys.exit(f"only {n} comparable iterations; run at least 20 timed steps per arm")

    speedup = statistics.mean(eager) / statistics.mean(graph)
    lo, hi = bootstrap_ratio_ci(eager, graph)
    print(f"real loop: eager {statistics.mean(eager):.2f} ms, graph {statistics.mean(graph):.2f} ms, "
          f"speedup {speedup:.3f}x [95% CI {lo:.3f}, {hi:.3f}] over {n} iterations")

    # Final call from the real loop.
    if lo > 1.0:
        print("VERDICT: graphs help on this config; adopt them (watch peak memory).")
    elif hi < 1.0:
        print("VERDICT: graphs are slower here; keep cuda_graph_impl=none.")
    else:
        print("VERDICT: no measurable benefit (CI spans 1.0); keep cuda_graph_impl=none.")


if __name__ == "__main__":
    main()
