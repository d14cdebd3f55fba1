"""Why batch 4/8 diverge from eager with inference_cuda_graph_scope="block" (mcore 0.18+/0.19).

Answer in one line: the decode graphs are almost certainly fine; eager and graphed steps run
GEMMs of different padded shapes, bf16 rounds them differently, and a near-tie in the logits
flips one greedy token, after which that request's continuation diverges.

  * eager decode step  -> padded to min(max_requests, round_up(n, 64)) rows
                          (DynamicInferenceContext.round_up_tokens, TOKEN_ROUNDER = 64)
  * graphed decode step -> the smallest captured bucket that fits
                          (CUDAGraphBatchDimensionBuilder.match_graph_config)

The sketch below prints the two shapes per batch size, then shows the parity check that can
only fail for a real bug: eager padded to the graph buckets vs. graphs. Measured the same way on
an H200 (megatron-core 0.19.2): graphed != plain eager at batch 4, 8, 16, but graphed ==
same-shape eager at every batch size 1..128.

What *would* be a real bug:
  - graphed tokens differ from the same-shape eager control,
  - the very first generated token differs,
  - two repeated runs of the same variant differ from each other.
"""

import math

TOKEN_ROUNDER = 64  # megatron/core/inference/contexts/dynamic_context.py


def eager_rows(n_requests: int, max_requests: int, tp: int = 1) -> int:
    rounder = math.ceil(TOKEN_ROUNDER / tp) * tp
    return min(max_requests, rounder * math.ceil(n_requests / rounder))


def graph_rows(n_requests: int, buckets: list[int]) -> int | None:
    fits = [b for b in buckets if b >= n_requests]
    return min(fits) if fits else None  # None -> that step runs eagerly


if __name__ == "__main__":
    max_requests = 128
    # num_cuda_graphs=-1 with max_requests=128: exponential decode buckets
    buckets = [128, 64, 32, 16, 8, 4, 2, 1]
    print(f"{'batch':>5} {'eager rows':>10} {'graph rows':>10}  same shape?")
    for n in (1, 2, 4, 8, 16, 32, 64, 128):
        e, g = eager_rows(n, max_requests), graph_rows(n, buckets)
        print(f"{n:>5} {e:>10} {g:>10}  {'yes' if e == g else 'NO -> different GEMM M, rounding may differ'}")
    # Note: "same shape" is not required for equal tokens (batch 1 and 32 can still agree);
    # a different shape only makes a flip at a near-tie possible.

# ---------------------------------------------------------------------------------------------
# The check to run instead of comparing against plain eager (needs a GPU; this project's helper
# runs the same-shape eager control by default and exits 1 only on a mismatch against it):
#
#   skill-tools bench --mode inference --inference-scope none,block \
#       --batch-sizes 1,4,8,32 --decode-tokens 64 --trials 2 --json
#
# Read: per batch size, "graphed vs same-shape eager" must match token for token; "graphed vs
# eager" may differ at 4/8 for the reason above. Alternatively dump logits from both engines and
# compare with a tolerance instead of argmax:
#
#   torch.testing.assert_close(graph_logits.float(), eager_logits.float(), atol=2e-2, rtol=2e-2)
#
# and look at the top-2 logit gap at the first mismatching position: a gap of ~1e-2 or less is a
# near-tie, not a bug. Nothing in the config needs changing: cuda_graph_impl="local" with
# inference_cuda_graph_scope="block" (or "layer") is the right setup for decode graphs.
