"""
triage_decode_parity.py -- is a graphed-vs-eager greedy mismatch a bug or a near-tie?

Context (megatron-core 0.19, dynamic engine, inference_cuda_graph_scope="block"):
  * A graphed decode step replays the smallest captured bucket that fits the batch
    (CUDAGraphBatchDimensionBuilder.match_graph_config -> min(applicable buckets)).
  * An eager decode step is padded by DynamicInferenceContext to
    min(max_tokens, max_requests, round_up_tokens(n)), i.e. up to a multiple of 64.
  So at batch 4 / 8 the graph runs a 4- / 8-row GEMM while plain eager runs 64 rows.
  Different bf16 GEMM shapes round differently; when two logits are nearly tied the
  greedy token flips and the sequences then diverge for good. That is expected and
  is NOT evidence that replay is broken.

What this script does
  Given per-request results from two runs (same prompts, top_k=1, fixed
  num_tokens_to_generate, termination_id=-1, return_log_probs=True, top_n_logprobs=2),
  it finds the first mismatching position and classifies it:
    - "near-tie"  : at that position the reference run's top-1/top-2 log-prob gap is
                    below --tie-eps -> rounding flip, fine
    - "SUSPECT"   : a clear winner flipped, or the mismatch is at generated token 0
  Run it on the pairs that matter:
    graph  vs eager_same_shape  -> must be identical (0 mismatches). Any mismatch = bug.
    graph  vs graph (2nd run)   -> must be identical. Any mismatch = bug.
    graph  vs plain eager       -> mismatches allowed, but only "near-tie" ones.

  eager_same_shape = same InferenceConfig (same max_requests / num_cuda_graphs /
  cuda_graph_max_tokens) with the model built with cuda_graph_impl="none": the
  context still pads every decode step to the matching bucket, the engine simply
  captures nothing.

Input format (one JSON file per run), produced by your serving script, e.g.:
  {"<request_id>": {"tokens": [...generated ids...],
                    "top2": [[lp_top1, lp_top2], ...]}}   # from generated_top_n_logprobs
"""

import argparse
import json
import sys


def first_mismatch(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    if len(a) != len(b):
        return min(len(a), len(b))
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("reference", help="JSON of the reference run (e.g. eager)")
    p.add_argument("candidate", help="JSON of the run under test (e.g. graphed)")
    p.add_argument("--must-match", action="store_true",
                   help="pair is same-shape or same-variant: any mismatch is a bug")
    p.add_argument("--tie-eps", type=float, default=0.02,
                   help="top-1/top-2 log-prob gap that counts as a near-tie")
    args = p.parse_args()

    ref = json.load(open(args.reference))
    cand = json.load(open(args.candidate))

    bugs = 0
    for rid in sorted(ref, key=str):
        r, c = ref[rid], cand.get(rid)
        if c is None:
            print(f"[{rid}] missing in candidate")
            bugs += 1
            continue
        pos = first_mismatch(r["tokens"], c["tokens"])
        if pos is None:
            continue
        if args.must_match:
            verdict = "BUG (same shape / same variant must be identical)"
            bugs += 1
        elif pos == 0:
            verdict = "SUSPECT (differs at the first generated token)"
            bugs += 1
        else:
            top2 = r.get("top2", [])
            gap = None
            if pos < len(top2) and len(top2[pos]) >= 2:
                gap = abs(top2[pos][0] - top2[pos][1])
            if gap is not None and gap < args.tie_eps:
                verdict = f"near-tie (gap {gap:.4f}) -> padded-shape rounding, fine"
            else:
                verdict = f"SUSPECT (gap {gap}) -> not a near-tie, investigate"
                bugs += 1
        print(f"[{rid}] first mismatch at gen pos {pos}: "
              f"ref={r['tokens'][pos] if pos < len(r['tokens']) else None} "
              f"cand={c['tokens'][pos] if pos < len(c['tokens']) else None} -> {verdict}")

    print(f"\n{bugs} suspicious mismatch(es)")
    sys.exit(1 if bugs else 0)


if __name__ == "__main__":
    main()

# Typical outcome for your report (batch 4/8 diverging after ~30 tokens):
#   graph vs plain eager       -> 1-2 "near-tie" lines, exit 0
#   graph vs eager_same_shape  -> 0 mismatches
#   graph vs graph             -> 0 mismatches
# i.e. the decode graphs are fine. If the same-shape or graph-vs-graph pair
# reports anything, or a mismatch sits at generated token 0, treat it as a real
# bug (stale static input, a host sync captured in the graph, wrong bucket) and
# report it with the request id and position.
