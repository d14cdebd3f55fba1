"""check_decode_parity.py: is a graphed-decode divergence a bug, or bf16 noise?

Background (MCore dynamic inference engine, megatron-core 0.19, local impl, block scope):

  * A plain eager decode step is padded to min(max_requests, round_up(n, 64)) rows
    (DynamicInferenceContext.round_up_tokens). A graphed step replays the smallest
    captured bucket that fits (CUDAGraphBatchDimensionBuilder.match_graph_config).
    The bf16 GEMMs then run with different shapes and round differently. Where the
    top two logits are nearly tied, greedy argmax flips a token and the sequences
    diverge from there. That is what you see at batch 4 and 8, ~30 tokens in.
  * So compare graphed output against eager *padded to the same buckets*, and look
    at log-prob margins rather than argmax tokens alone.

What this script reports as a real bug:
  * a token mismatch against the same-shape eager run that is NOT a near-tie, or
  * any mismatch at the first generated token (pos 0).

Run-to-run differences between two executions of the same variant are normal GPU
non-determinism (atomics in the attention kernels, split-K reductions) and are not
treated as failures. That is why each variant is dumped once, not repeated.

Input: two JSONL files, one line per (request, position), written by your harness:
    {"req": 0, "pos": 0, "token": 1234, "top2_logprobs": [-0.710, -0.733]}
  --eager   eager decode padded to the graph buckets (same-shape control)
  --graphed graphed decode
(`skill-tools bench --mode inference` runs such a same-shape eager control for you,
if you would rather not maintain the harness.)
"""

import argparse
import json
import sys
from collections import defaultdict


def load(path):
    seqs = defaultdict(dict)
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            seqs[r["req"]][r["pos"]] = r
    return seqs


def first_mismatch(a, b):
    for pos in sorted(set(a) & set(b)):
        if a[pos]["token"] != b[pos]["token"]:
            return pos
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--eager", required=True, help="same-shape eager dump (JSONL)")
    p.add_argument("--graphed", required=True, help="graphed dump (JSONL)")
    p.add_argument("--tie-margin", type=float, default=0.02,
                   help="top-1 minus top-2 log-prob below which a flip counts as a near-tie")
    args = p.parse_args()

    eager, graphed = load(args.eager), load(args.graphed)
    bugs = 0
    for req in sorted(set(eager) & set(graphed)):
        pos = first_mismatch(eager[req], graphed[req])
        if pos is None:
            print(f"req {req}: identical")
            continue
        lp = eager[req][pos]["top2_logprobs"]
        margin = lp[0] - lp[1]
        if pos == 0:
            print(f"req {req}: BUG - differs at the first generated token")
            bugs += 1
        elif margin < args.tie_margin:
            print(f"req {req}: near-tie flip at pos {pos} (margin {margin:.4f}), not a bug")
        else:
            print(f"req {req}: BUG - pos {pos} differs with margin {margin:.4f}")
            bugs += 1

    sys.exit(1 if bugs else 0)


if __name__ == "__main__":
    main()
