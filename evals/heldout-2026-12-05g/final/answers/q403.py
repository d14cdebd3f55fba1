"""parity_triage.py: is a greedy-token mismatch between eager and graphed decode a real bug?

Answer to "are my decode CUDA graphs broken?": most likely not. With the MCore
dynamic engine (megatron-core 0.19) eager and graphed decode steps run *different
padded batch shapes*:

  * eager decode pads n requests to min(max_requests, round_up(n, 64)) rows
    (DynamicInferenceContext.round_up_tokens, TOKEN_ROUNDER = 64,
    megatron/core/inference/contexts/dynamic_context.py l.251 and l.2260-2264
    @ core_v0.19.0);
  * a graphed step replays the smallest captured bucket that fits n
    (CUDAGraphBatchDimensionBuilder.match_graph_config,
    megatron/core/inference/batch_dimensions_utils.py l.685).

Different GEMM shapes mean different kernels and bf16 reduction orders. When two
logits are nearly tied, the rounding difference flips a greedy token, and that
request then diverges for the rest of the generation. This matches "one or two
requests differ after ~30 tokens at batch 4/8, identical at 1/32".

How to prove it (three arms, same prompts, top_k=1, termination_id=-1, fixed
num_tokens_to_generate, same seed):

  A  "graphed":   cuda_graph_impl="local", inference_cuda_graph_scope="block",
                  your InferenceConfig (num_cuda_graphs=...).
  B  "eager":     cuda_graph_impl="none", InferenceConfig(num_cuda_graphs=None),
                  i.e. plain eager (pads to round_up(n, 64)).
  C  "eager_same_shape": cuda_graph_impl="none" but the SAME InferenceConfig
                  as A (same num_cuda_graphs / max_requests / cuda_graph_max_tokens).
                  The context then builds A's bucket list and pads each eager
                  decode step to the matching bucket, while the engine captures
                  nothing (create_cuda_graphs returns unless cuda_graph_impl ==
                  "local", megatron/core/inference/engines/dynamic_engine.py l.425).
  A2 (optional)   a second run of A, to catch run-to-run nondeterminism.

Dump each arm as JSON: {"<batch_size>": [[tok, tok, ...], ...one list per request]}
and optionally per-position top-2 log-prob gaps as {"<batch_size>": [[gap, ...], ...]}.

Verdicts:
  OK_PADDING   A == C everywhere; A != B only after the first token -> graphs fine.
  BUG          A != C, or A != B at the first generated token, or A != A2.

Usage:
  python parity_triage.py --graphed A.json --eager B.json --same-shape C.json \
      [--graphed-repeat A2.json] [--gaps B_gaps.json] [--gap-tol 0.05]
Exit code: 0 = no real bug found, 1 = real bug signature, 2 = bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Dict, List, Optional, Tuple

Tokens = Dict[str, List[List[int]]]


def load(path: Optional[str]) -> Optional[dict]:
    if path is None:
        return None
    with open(path) as f:
        return json.load(f)


def first_mismatch(a: List[int], b: List[int]) -> Optional[int]:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    if len(a) != len(b):
        return min(len(a), len(b))
    return None


def compare(x: Tokens, y: Tokens) -> List[Tuple[str, int, int]]:
    """Return (batch_size, request_index, first_mismatch_position) for every differing request."""
    out = []
    for bs in sorted(x, key=int):
        if bs not in y:
            raise KeyError(f"batch size {bs} missing in one arm")
        for r, (ta, tb) in enumerate(zip(x[bs], y[bs])):
            pos = first_mismatch(ta, tb)
            if pos is not None:
                out.append((bs, r, pos))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphed", required=True)
    p.add_argument("--eager", required=True)
    p.add_argument("--same-shape", required=True, help="eager padded to the graph buckets")
    p.add_argument("--graphed-repeat")
    p.add_argument("--gaps", help="per-position top-2 log-prob gap of the eager arm")
    p.add_argument("--gap-tol", type=float, default=0.05)
    a = p.parse_args()

    try:
        graphed, eager, same = load(a.graphed), load(a.eager), load(a.same_shape)
        repeat, gaps = load(a.graphed_repeat), load(a.gaps)
    except (OSError, json.JSONDecodeError) as e:
        print(f"bad input: {e}", file=sys.stderr)
        return 2

    bug = False

    # 1. Graphed vs eager at identical padded shapes: must be identical.
    for bs, r, pos in compare(graphed, same):
        bug = True
        print(f"BUG  batch={bs} req={r}: graphed != same-shape eager from token {pos} "
              "(stale static input, host sync in the graph, or wrong bucket)")

    # 2. Graphed vs graphed: must be deterministic.
    if repeat is not None:
        for bs, r, pos in compare(graphed, repeat):
            bug = True
            print(f"BUG  batch={bs} req={r}: two graphed runs differ from token {pos}")

    # 3. Graphed vs plain eager: expected to differ at near-ties, never at token 0.
    for bs, r, pos in compare(graphed, eager):
        if pos == 0:
            bug = True
            print(f"BUG  batch={bs} req={r}: differs from eager at the FIRST generated token")
            continue
        note = ""
        if gaps is not None:
            gap = gaps[bs][r][pos]
            note = f", eager top-2 gap {gap:.4f}" + (" (near-tie)" if gap <= a.gap_tol else " (NOT a near-tie: look closer)")
        print(f"ok   batch={bs} req={r}: differs from plain eager from token {pos}{note}: padded-shape rounding")

    print("VERDICT:", "BUG" if bug else "OK_PADDING (graphs replay correctly; compare at equal shapes)")
    return 1 if bug else 0


if __name__ == "__main__":
    sys.exit(main())
