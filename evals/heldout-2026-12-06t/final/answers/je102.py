"""
cg_ab.py - enable TE-scoped CUDA graphs on a Llama 3.1 8B Bridge recipe (megatron-core 0.19)
and A/B it against eager from the training logs.

Recommendation: start with cuda_graph_impl="transformer_engine" on attention only, keep
seq_length=8192 / micro_batch_size=1 fixed, and widen to ["attn", "mlp"] only if the A/B shows
a win. Profile the eager run with nsys first; if the step is GPU-bound there is nothing to gain.

Usage:
    # 1) in your launch script, after building the recipe:
    #        from cg_ab import enable_cuda_graphs; enable_cuda_graphs(cfg)
    # 2) run eager and graphed for the same number of iterations (e.g. 10), same seed
    # 3) python cg_ab.py eager.log graph.log
"""

import re
import statistics
import sys


def enable_cuda_graphs(cfg, modules=("attn",)):
    """Per-layer TE graphs, 0.18+ key names."""
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None            # recipe default "full" + modules would assert on 0.18+
    cfg.model.cuda_graph_modules = list(modules)
    cfg.model.cuda_graph_warmup_steps = 3
    # TE's RNG tracker is required for graph capture
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    # shapes must be static for replay
    assert cfg.train.micro_batch_size == 1
    return cfg


ITER_RE = re.compile(
    r"iteration\s+(\d+)/\s*\d+.*?elapsed time per iteration \(ms\):\s*([0-9.]+)"
)


def iter_times(path):
    out = {}
    with open(path) as f:
        for line in f:
            m = ITER_RE.search(line)
            if m:
                out[int(m.group(1))] = float(m.group(2))
    return out


def steady_state_ms(path, skip=1):
    # Bridge runs the cuda_graph_warmup_steps eager passes and the capture as part of
    # training setup, before iteration 1 is logged, so every logged iteration is already
    # a replay. Only iteration 1 is dropped (allocator / first-touch noise).
    t = iter_times(path)
    vals = [ms for it, ms in sorted(t.items()) if it > skip]
    return statistics.mean(vals), len(vals)


if __name__ == "__main__":
    eager_log, graph_log = sys.argv[1], sys.argv[2]
    e, n_e = steady_state_ms(eager_log)
    g, n_g = steady_state_ms(graph_log)
    print(f"eager : {e:8.1f} ms/iter over {n_e} iters")
    print(f"graphs: {g:8.1f} ms/iter over {n_g} iters")
    print(f"speedup: {e / g:.3f}x")
    # If speedup < 1.0 the run is not launch-bound: leave cuda_graph_impl="none".
