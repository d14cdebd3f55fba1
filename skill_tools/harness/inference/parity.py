"""Token parity of graphed decode against eager, as Megatron-LM's inference tests define it.

Two definitions, two controls (all run keys are worker processes of ``inference_runner``):

- same padded shapes: a graph replays its decode step at its bucket's padded batch, so the eager
  control pads every decode step to the same bucket (``none-graph-shapes``); greedy tokens must be
  identical (tests/unit_tests/inference/engines/test_dynamic_engine.py compares graphed tokens with
  fixed expected lists at core_v0.19.0);
- natural shapes under ``batch_invariant_mode``: with fixed-reduction kernels the padded rows
  cannot change a real row's numerics, so graphed tokens must equal plain eager
  (tests/unit_tests/inference/engines/test_gdp_cuda_graph_e2e.py:263-285 @main runs both engines
  inside ``set_batch_invariant_mode(True)``). Keys ending in ``-batch-invariant``.

A mismatch is reported at its first (request, position) with the log-probabilities both runs gave
their own token there, and the largest logprob drift over the common prefix before it: a
near-tie flipped by rounding looks different from a replay that reads stale buffers.
Pure Python, no torch.
"""

from __future__ import annotations

from typing import Any

#: Eager padded to the graph buckets (worker ``--eager-graph-shapes``).
SAME_SHAPE_EAGER = "none-graph-shapes"
#: Suffix of runs under ``batch_invariant_mode`` (worker ``--batch-invariant``).
BATCH_INVARIANT = "-batch-invariant"


def run_scope(key: str) -> str:
    """The ``inference_cuda_graph_scope`` a run key measures."""
    base = key[: -len(BATCH_INVARIANT)] if key.endswith(BATCH_INVARIANT) else key
    return "none" if base == SAME_SHAPE_EAGER else base


def is_batch_invariant(key: str) -> bool:
    return key.endswith(BATCH_INVARIANT)


def baseline_key(key: str) -> str:
    """The eager run a key's speedup and plain parity are measured against."""
    return "none" + BATCH_INVARIANT if is_batch_invariant(key) else "none"


def worker_flags(key: str) -> list[str]:
    """Worker options of a run key beyond ``--scope``."""
    flags = []
    if key.startswith(SAME_SHAPE_EAGER):
        flags.append("--eager-graph-shapes")
    if is_batch_invariant(key):
        flags.append("--batch-invariant")
    return flags


def _at(seq: list | None, i: int):
    return seq[i] if seq is not None and i < len(seq) else None


def first_mismatch(eager: list[list[int]], other: list[list[int]],
                   eager_lp: list[list[float]] | None = None,
                   other_lp: list[list[float]] | None = None) -> dict[str, Any] | None:
    """First (request, position) where two greedy generations differ; None when identical.

    With log-probs (one list per request, one value per generated token), adds each run's
    logprob of its own token at the mismatch and the largest |delta| over the tokens before it.
    """
    if len(eager) != len(other):
        return {"request": None, "position": None, "reason": f"{len(other)} outputs vs {len(eager)} eager"}
    for r, (a, b) in enumerate(zip(eager, other)):
        for i in range(max(len(a), len(b))):
            x, y = _at(a, i), _at(b, i)
            if x == y:
                continue
            out: dict[str, Any] = {"request": r, "position": i, "eager": x, "graphed": y}
            la, lb = _at(eager_lp, r), _at(other_lp, r)
            if la and lb:
                out["eager_logprob"] = _at(la, i)
                out["graphed_logprob"] = _at(lb, i)
                prefix = [abs(p - q) for p, q in zip(la[:i], lb[:i])]
                out["max_abs_logprob_delta_before"] = max(prefix) if prefix else 0.0
            return out
    return None


def max_logprob_delta(eager_lp: list[list[float]] | None, other_lp: list[list[float]] | None) -> float | None:
    """Largest |logprob difference| over all tokens of two runs (None without log-probs)."""
    if not eager_lp or not other_lp:
        return None
    deltas = [abs(p - q) for la, lb in zip(eager_lp, other_lp) for p, q in zip(la, lb)]
    return max(deltas) if deltas else None


def compare(base: dict[str, Any], batch: dict[str, Any]) -> tuple[bool, dict[str, Any] | None, float | None]:
    """(tokens equal, first mismatch, max |logprob delta|) of one batch against a control batch."""
    mm = first_mismatch(base["tokens"], batch["tokens"], base.get("logprobs"), batch.get("logprobs"))
    return mm is None, mm, max_logprob_delta(base.get("logprobs"), batch.get("logprobs"))


def describe(mm: dict[str, Any] | None) -> str:
    """One line for tables: where the tokens first differ and by how much the logprobs moved."""
    if mm is None:
        return "yes"
    if mm.get("request") is None:
        return f"NO ({mm.get('reason')})"
    text = f"NO (request {mm['request']} token {mm['position']}: {mm['eager']} vs {mm['graphed']}"
    if mm.get("eager_logprob") is not None and mm.get("graphed_logprob") is not None:
        text += (f"; logprob {mm['eager_logprob']:.4f} vs {mm['graphed_logprob']:.4f}, max |Δ| before "
                 f"{mm['max_abs_logprob_delta_before']:.2e}")
    return text + ")"
