"""Parity triage for MCore dynamic-inference decode CUDA graphs (block scope).

Answer first: no, this pattern does not show broken decode graphs. "Matches at batch 1 and 32, one or
two requests drift after ~30 tokens at batch 4 and 8" is the signature of eager and graphed steps
running *different padded batch shapes*, not of a bad replay.

Why
---
* Eager decode steps are padded by ``DynamicInferenceContext.initialize_attention_state`` to
  ``min(max_requests, round_up_tokens(n))``, where ``round_up_tokens`` rounds to a multiple of
  ``TOKEN_ROUNDER = 64``. See ``megatron/core/inference/contexts/dynamic_context.py`` @ core_v0.19.0:
  TOKEN_ROUNDER l.251, round_up_tokens l.1464-1476, the eager decode cap around l.2260-2264.
* Graphed steps replay the smallest captured bucket that fits, chosen by
  ``CUDAGraphBatchDimensionBuilder.match_graph_config``
  (``megatron/core/inference/batch_dimensions_utils.py`` l.622 @ core_v0.19.0). So 4 requests run
  4 rows and 8 run 8, while eager runs 64 of them (or ``max_requests`` if that is smaller).
* bf16 GEMMs with different M can use different kernels and tiling, so their rounding differs. A
  near-tie between the top two logits of one request then flips a greedy token, and after that the
  sequences diverge. Which batch sizes "match" depends only on where near-ties fall. On an H200
  (megatron-core 0.19.2), graphed tokens differed from plain eager at batch 4, 8 and 16 but equalled
  eager padded to the same graph buckets at every batch size from 1 to 128.

What to do
----------
1. Compare at equal padded shapes. Use an eager control padded to the graph buckets: same context,
   same bucket list, model built without CUDA graphs. ``skill-tools bench --mode inference`` runs
   this control by default.
2. Or compare per-step logits/log-probs with a tolerance (``compare_logprobs`` below) instead of
   argmax tokens.
3. Treat any of these as a real bug (stale static inputs, captured host sync, wrong bucket):
   - graphed tokens != same-shape eager tokens,
   - a mismatch at the first generated token,
   - two runs of the same variant (same prompts, same batch) that disagree.

Usage: dump per-request generated token ids (and, if you have them, per-token log-probs) from each
run to .pt files as ``{"tokens": List[List[int]], "logprobs": List[List[float]] | None}``, then::

    python parity_triage.py graphed.pt eager_same_shape.pt [graphed_rerun.pt]
"""

import sys
from typing import List, Optional, Tuple

import torch


def first_mismatch(a: List[List[int]], b: List[List[int]]) -> Optional[Tuple[int, int, int, int]]:
    """Return the first token mismatch between two runs.

    Parameters
    ----------
    a, b : list of list of int
        Generated token ids per request, same request order in both runs.

    Returns
    -------
    tuple or None
        ``(request, position, token_a, token_b)`` for the first difference, else ``None``.
    """
    for r, (ra, rb) in enumerate(zip(a, b)):
        for p, (ta, tb) in enumerate(zip(ra, rb)):
            if ta != tb:
                return r, p, ta, tb
    return None


def compare_logprobs(a: List[List[float]], b: List[List[float]], atol: float = 2e-2) -> bool:
    """Tolerance check on log-probs of the shared prefix (up to the first token mismatch).

    Parameters
    ----------
    a, b : list of list of float
        Per-request log-probs of the generated tokens.
    atol : float
        Absolute tolerance. bf16 shape-dependent rounding stays well below this.

    Returns
    -------
    bool
        True when every compared log-prob is within ``atol``.
    """
    for ra, rb in zip(a, b):
        n = min(len(ra), len(rb))
        if n and not torch.allclose(torch.tensor(ra[:n]), torch.tensor(rb[:n]), atol=atol):
            return False
    return True


def verdict(graphed: dict, same_shape_eager: dict, rerun: Optional[dict] = None) -> str:
    """Classify the run. Only same-shape / first-token / rerun mismatches count as bugs."""
    mm = first_mismatch(graphed["tokens"], same_shape_eager["tokens"])
    if mm is not None:
        r, p, ta, tb = mm
        kind = "at the FIRST generated token" if p == 0 else f"at position {p}"
        return f"REAL BUG: graphed != eager at equal padded shapes, request {r} {kind} ({ta} vs {tb})"
    if rerun is not None and first_mismatch(graphed["tokens"], rerun["tokens"]) is not None:
        return "REAL BUG: two runs of the same graphed variant disagree"
    if graphed.get("logprobs") and same_shape_eager.get("logprobs"):
        if not compare_logprobs(graphed["logprobs"], same_shape_eager["logprobs"]):
            return "SUSPICIOUS: tokens equal but log-probs outside tolerance"
    return "OK: graphs match eager at the same padded shapes; plain-eager drift is bf16 shape rounding"


if __name__ == "__main__":
    runs = [torch.load(p) for p in sys.argv[1:]]
    print(verdict(*runs))
