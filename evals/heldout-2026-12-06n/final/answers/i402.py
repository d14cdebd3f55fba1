"""parity_check.py -- is my decode CUDA graph actually wrong, or is it padding?

Context (megatron-core 0.19 dynamic engine, inference_cuda_graph_scope="block"):
  * eager decode steps are padded by DynamicInferenceContext.round_up_tokens()
    to min(max_requests, round_up(n, 64)) rows
  * graphed decode steps replay the smallest captured bucket that fits
    (CUDAGraphBatchDimensionBuilder.match_graph_config -> min(applicable))
So at n=4 the eager GEMMs see e.g. 64 rows and the graph sees 4 rows. bf16
results differ in the last bits; at a near-tie between two logits greedy
picks a different token and the continuation diverges from there on. That is
not a replay bug.

This script compares per-step logits instead of only tokens, and reports the
top-2 margin at the first token that differs. Feed it the per-step logits you
dump from both runs (teacher-forced on the SAME token prefix, so a single flip
doesn't cascade).

The decisive control is eager forced to the graph's padded shape (same bucket
size). If graph == eager-at-same-shape, graphs are fine.
Real bug signals:
  - mismatch vs eager at the same padded shape
  - mismatch at the FIRST generated token
  - graph run A != graph run B (same variant, same inputs)
"""
import sys
import torch

ATOL = 5e-2   # bf16 logits; loosen for big vocab / deep models
TIE = 0.05    # top-2 logit gap under which a flip is "just rounding"


def compare(eager_logits, graph_logits, label):
    # both: [steps, batch, vocab], teacher-forced on the same prefix
    diff = (eager_logits.float() - graph_logits.float()).abs()
    print(f"[{label}] max |dlogit| = {diff.max().item():.4f}")
    e_tok = eager_logits.argmax(-1)
    g_tok = graph_logits.argmax(-1)
    flips = (e_tok != g_tok).nonzero()
    for step, req in flips.tolist():
        top2 = eager_logits[step, req].float().topk(2).values
        gap = (top2[0] - top2[1]).item()
        kind = "near-tie (rounding)" if gap < TIE else "LARGE GAP -> investigate"
        print(f"  step {step} req {req}: flip, eager top-2 gap {gap:.4f}  {kind}")
        if step == 0:
            print("  !! differs at the first generated token: treat as a real bug")
    return diff.max().item() <= ATOL


if __name__ == "__main__":
    eager_plain = torch.load(sys.argv[1])      # eager, default padding
    eager_bucket = torch.load(sys.argv[2])     # eager padded to graph bucket
    graph_a = torch.load(sys.argv[3])          # graphs, run 1
    graph_b = torch.load(sys.argv[4])          # graphs, run 2

    compare(eager_plain, graph_a, "plain eager vs graph (expected to wobble)")
    ok_shape = compare(eager_bucket, graph_a, "eager@bucket vs graph")
    ok_repeat = torch.equal(graph_a, graph_b)
    print("graph repeatable:", ok_repeat)
    if ok_shape and ok_repeat:
        print("=> graphs OK; the batch 4/8 divergence is padded-shape bf16 rounding.")
    else:
        print("=> real discrepancy, file a bug with these dumps.")
