"""cuda_graph_overrides.py — CUDA graph bring-up for Llama 3.1 8B (Bridge + megatron-core 0.19).

Recommendation: Transformer Engine scoped capture, starting with attention only.
For a dense 8B model at TP=1/PP=1 this is the safest first step. Whole-iteration
capture comes with extra constraints (NaN checks off, etc.) and isn't needed
just to find out whether graphs help you.

Usage:
    from cuda_graph_overrides import apply_cuda_graphs, ab_step_time
    cfg = llama31_8b_pretrain_config()
    apply_cuda_graphs(cfg, modules=("attn",))
"""

from __future__ import annotations

import statistics
from typing import Iterable, Sequence


def apply_cuda_graphs(cfg, modules: Iterable[str] = ("attn",), warmup_steps: int = 3):
    """Enable TE-scoped CUDA graphs on a Bridge ConfigContainer (MCore >= 0.18 names)."""
    m = cfg.model

    # Graph replay needs static shapes: fixed seq len and micro-batch size.
    assert m.seq_length == cfg.dataset.seq_length == 8192, "keep seq_length static"
    assert cfg.train.micro_batch_size == 1, "keep micro_batch_size static"
    assert not getattr(m, "cpu_offloading", False), "CPU offloading is incompatible with CUDA graphs"

    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_modules = list(modules)     # "attn" first; try ["attn", "mlp"] later
    m.cuda_graph_scope = None                # deprecated alias; can't be set alongside cuda_graph_modules
    m.cuda_graph_warmup_steps = warmup_steps

    # TE's RNG tracker is required for graph-safe dropout / RNG state.
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


def ab_step_time(eager_iter_times: Sequence[float], graph_iter_times: Sequence[float]) -> dict:
    """Compare eager vs. CUDA-graph step time from the per-iteration times in the training log.

    Pass the per-iteration elapsed times (ms) of iterations 1..N from both runs.
    We average the full window so a single noisy iteration can't skew the result,
    and so the one-time capture cost is included in what you're actually paying.
    """
    n = min(len(eager_iter_times), len(graph_iter_times))
    eager = statistics.mean(eager_iter_times[:n])
    graph = statistics.mean(graph_iter_times[:n])
    return {
        "iters": n,
        "eager_ms": round(eager, 1),
        "graph_ms": round(graph, 1),
        "speedup_pct": round(100.0 * (eager - graph) / eager, 2),
    }


# Suggested procedure
# 1. Profile eager first (nsys, a few iterations). Only keep going if there are visible
#    host/launch gaps between small kernels.
# 2. apply_cuda_graphs(cfg, ("attn",)) -> run 20 iterations, pull the per-iteration times
#    from the log, and call ab_step_time(eager_times, graph_times).
# 3. If it's a win and memory allows it, repeat with ("attn", "mlp").
# 4. Keep whichever variant wins; if neither does, go back to cuda_graph_impl="none".
