"""Eager vs graph: steady-state speedup with a bootstrap CI, loss agreement, memory delta, verdict.

Verdict rules (``band`` = 2% by default, the smallest difference worth acting on):
- inconclusive: fewer than ``MIN_SAMPLES`` steady iterations in either log, either run failed,
  no capture in the graph log, or a CI so wide that it reaches beyond the band on both sides;
- faster: CI lower bound > 1 and point estimate >= 1 + band;
- slower: CI upper bound < 1 and point estimate <= 1 - band;
- neutral: otherwise (the difference is within the band or not significant).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skill_tools.logs.diagnose import Failure, make_failure, signature
from skill_tools.logs.checks import capture_context
from skill_tools.logs.parse import ParsedLog
from skill_tools.logs.rates import compare_rates
from skill_tools.logs.runinfo import MODEL_KEYS
from skill_tools.logs.steady import SteadyState, detect_capture, memory_summary, steady_state
from skill_tools.stats import BOOTSTRAP_MAX_N, ratio_ci

MIN_SAMPLES = 3
#: where per-step times come from (other stacks' throughput lines are not per-step times)
STEP_TIMES = ("read from Megatron-LM / Megatron Bridge iteration lines, or a rate both logs report: "
              "SGLang/vLLM throughput and latency lines, TorchBench times, tqdm it/s")
DEFAULT_BAND = 0.02
DEFAULT_LOSS_RTOL = 0.02


@dataclass
class Comparison:
    verdict: str
    reason: str
    speedup: float | None = None
    speedup_ci95: tuple[float, float] | None = None
    eager_median_ms: float | None = None
    graph_median_ms: float | None = None
    loss: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Any] = field(default_factory=dict)
    swapped: bool = False
    failures: list[Failure] = field(default_factory=list)
    #: How the two runs differ in what makes a timing comparison meaningful (model, batch, ...).
    warnings: list[str] = field(default_factory=list)
    #: The steady states compared (after any swap), so callers summarising the logs reuse them.
    eager_steady: SteadyState | None = field(default=None, repr=False)
    graph_steady: SteadyState | None = field(default=None, repr=False)
    #: the rate compared when the logs have no iteration lines (rates.py), else None
    metric: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        r = lambda v: None if v is None else round(v, 4)  # noqa: E731
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "speedup": r(self.speedup),
            "speedup_ci95": None if self.speedup_ci95 is None else [r(x) for x in self.speedup_ci95],
            "eager_median_ms": r(self.eager_median_ms),
            "graph_median_ms": r(self.graph_median_ms),
            "loss": self.loss,
            "memory": self.memory,
            "swapped_inputs": self.swapped,
            "metric": self.metric,
            "warnings": self.warnings,
            "failures": [f.to_dict() for f in self.failures],
        }


def _loss_delta(eager: ParsedLog, graph: ParsedLog, rtol: float) -> dict[str, Any]:
    """Max |delta| per loss key over iterations logged in both runs (numpy over the columns)."""
    ei, gi = eager.iterations.numbers("iteration"), graph.iterations.numbers("iteration")
    common, ea, ga = np.intersect1d(ei, gi, assume_unique=True, return_indices=True)
    if not len(common):
        return {"overlapping_iterations": 0, "within_tolerance": None,
                "note": "no iteration logged in both runs"}
    keys: dict[str, dict[str, Any]] = {}
    eager_keys = set(eager.iterations.loss_keys())
    for k in graph.iterations.loss_keys():
        if k not in eager_keys:
            continue
        gv, ev = graph.iterations.column(k)[ga], eager.iterations.column(k)[ea]
        both = ~np.isnan(gv) & ~np.isnan(ev)
        if not both.any():
            continue
        gv, ev, its = gv[both], ev[both], common[both]
        fin_e, fin_g = np.isfinite(ev), np.isfinite(gv)
        d = {"max_abs_delta": 0.0, "max_rel_delta": 0.0, "at_iteration": None,
             "non_finite_in_graph_only": int((fin_e & ~fin_g).sum())}
        fin = fin_e & fin_g
        if fin.any():
            delta = np.abs(gv[fin] - ev[fin])
            rel = delta / np.maximum(np.abs(ev[fin]), 1e-12)
            j = int(np.argmax(delta))
            d.update(max_abs_delta=round(float(delta[j]), 6), at_iteration=int(its[fin][j]),
                     max_rel_delta=round(float(rel.max()), 6))
        keys[k] = d
    ok = all(d["max_rel_delta"] <= rtol and not d["non_finite_in_graph_only"] for d in keys.values()) if keys else None
    return {
        "overlapping_iterations": int(len(common)),
        "range": [int(common[0]), int(common[-1])],
        "keys": keys,
        "rtol": rtol,
        "within_tolerance": ok,
    }


def _ratio(se: SteadyState, sg: SteadyState, seed: int) -> tuple[float, float, float]:
    """Speedup and CI; large samples use the order-statistic CIs already computed for each log
    (the conservative ratio stats.ratio_ci uses above its bootstrap limit)."""
    if max(se.n, sg.n) > BOOTSTRAP_MAX_N and se.ci95_ms and sg.ci95_ms:
        (blo, bhi), (vlo, vhi) = se.ci95_ms, sg.ci95_ms
        point = se.median_ms / sg.median_ms  # type: ignore[operator]
        return point, (blo / vhi) if vhi else math.inf, (bhi / vlo) if vlo else math.inf
    return ratio_ci(list(se.samples_ms), list(sg.samples_ms), seed=seed)


def _memory_delta(eager: ParsedLog, graph: ParsedLog) -> dict[str, Any]:
    me, mg = memory_summary(eager), memory_summary(graph)
    out: dict[str, Any] = {"eager": me, "graph": mg}
    for key in ("peak_max_allocated_mib", "peak_max_reserved_mib"):
        e, g = me.get(key), mg.get(key)
        if e is not None and g is not None:
            out[key.replace("peak_", "delta_")] = round(g - e, 1)
            out[key.replace("peak_", "delta_pct_")] = round(100.0 * (g - e) / e, 2) if e else None
    return out


def run_shape(log: ParsedLog) -> dict[str, Any]:
    """What the run was, as far as the log says: model dimensions, global batch, sequence length,
    world size (None where the log does not say)."""
    args = log.runinfo.args
    gbs: Any = args.get("global_batch_size")
    if gbs is None:
        for it in log.iterations[:50]:
            v = it.global_batch_size
            if v is not None:
                gbs = int(v) if float(v).is_integer() else v
                break
    model = {k: args[k] for k in MODEL_KEYS if k in args}
    if log.runinfo.params_billion is not None:
        model["params_billion"] = log.runinfo.params_billion
    return {
        "model": model or None,
        "global_batch_size": None if gbs is None else str(gbs),
        "seq_length": args.get("seq_length"),
        "world_size": None if log.runinfo.to_dict().get("world_size") is None else str(log.runinfo.to_dict()["world_size"]),
    }


def shape_warnings(a: ParsedLog, b: ParsedLog) -> list[str]:
    """One line per quantity that both logs state and that differs between them."""
    sa, sb = run_shape(a), run_shape(b)
    out = []
    ma, mb = sa["model"] or {}, sb["model"] or {}
    diff = {k: (ma[k], mb[k]) for k in ma.keys() & mb.keys() if str(ma[k]) != str(mb[k])}
    if diff:
        out.append("different models: " + ", ".join(f"{k} {x} vs {y}" for k, (x, y) in sorted(diff.items())))
    for key, name in (("global_batch_size", "global batch size"), ("seq_length", "sequence length"),
                      ("world_size", "world size")):
        x, y = sa[key], sb[key]
        if x is not None and y is not None and x != y:
            out.append(f"different {name}: {x} vs {y}")
    return out


def _compare_rates(cmp: Comparison, eager: ParsedLog, graph: ParsedLog, band: float, seed: int) -> None:
    """Runs without Megatron iteration lines: compare a per-step/per-batch rate both logs report."""
    if capture_context(eager) and not capture_context(graph):
        eager, graph, cmp.swapped = graph, eager, not cmp.swapped
    r = compare_rates(eager.rates, graph.rates, band=band, seed=seed)
    if not r["reason"]:
        which = " and ".join(n for n, lg in (("eager", eager), ("graph", graph)) if not lg.iterations)
        cmp.reason = (f"no per-step times in the {which} log{'s' if ' and ' in which else ''} ({STEP_TIMES}): "
                      "nothing to compare; log step times in both runs the same way")
        return
    cmp.verdict, cmp.reason, cmp.metric = r["verdict"], r["reason"], r.get("metric")
    cmp.speedup, cmp.speedup_ci95 = r.get("speedup"), r.get("ci95")
    if cmp.verdict in ("neutral", "slower"):
        cmp.failures.append(make_failure(signature("no-speedup"), None, r["reason"]))
        cmp.failures[-1].log = graph.source


def _errors(log: ParsedLog) -> list[Failure]:
    return [f for f in log.failures if f.severity == "error"]


def compare(
    eager: ParsedLog,
    graph: ParsedLog,
    *,
    band: float = DEFAULT_BAND,
    loss_rtol: float = DEFAULT_LOSS_RTOL,
    warmup: int | None = None,
    seed: int = 0,
) -> Comparison:
    """Compare an eager baseline with a CUDA-graph run. Inputs are swapped (and said so) when
    only the first one shows a capture."""
    swapped = False
    if detect_capture(eager).detected and not detect_capture(graph).detected:
        eager, graph, swapped = graph, eager, True
    se: SteadyState = steady_state(eager, warmup=warmup, seed=seed)
    sg: SteadyState = steady_state(graph, warmup=warmup, seed=seed)
    cmp = Comparison(
        verdict="inconclusive",
        reason="",
        eager_median_ms=se.median_ms,
        graph_median_ms=sg.median_ms,
        loss=_loss_delta(eager, graph, loss_rtol),
        memory=_memory_delta(eager, graph),
        swapped=swapped,
        eager_steady=se,
        graph_steady=sg,
    )
    cmp.warnings = shape_warnings(eager, graph)
    if se.n and sg.n and se.median_ms and sg.median_ms:  # a 0 ms median has no ratio
        point, lo, hi = _ratio(se, sg, seed)
        cmp.speedup, cmp.speedup_ci95 = point, (lo, hi)
    speed = (
        f"speedup {cmp.speedup:.3f}x (95% CI {cmp.speedup_ci95[0]:.3f}-{cmp.speedup_ci95[1]:.3f}; "
        f"eager median {se.median_ms:.1f} ms over {se.n}, graph median {sg.median_ms:.1f} ms over {sg.n} "
        "steady iterations)"
        if cmp.speedup is not None and cmp.speedup_ci95 is not None
        else ""
    )
    failed = [(name, f) for name, log in (("eager", eager), ("graph", graph)) for f in _errors(log)]
    if failed:
        name, f = failed[0]
        cmp.reason = f"the {name} run failed ({f.id} at line {f.line_no}); timings are not comparable"
    elif not (eager.iterations and graph.iterations):
        _compare_rates(cmp, eager, graph, band, seed)
    elif not detect_capture(graph).detected:
        cmp.reason = "neither log shows a CUDA-graph capture message, so this is not an eager-vs-graph pair"
    elif cmp.speedup is None and se.n >= MIN_SAMPLES and sg.n >= MIN_SAMPLES:
        cmp.reason = "a median step time of 0 ms: the logged times are too coarse to compare"
    elif se.n < MIN_SAMPLES or sg.n < MIN_SAMPLES:
        cmp.reason = (
            f"too few steady-state iterations (eager {se.n}, graph {sg.n}; need {MIN_SAMPLES} each): "
            "run longer than warmup + capture"
        )
    else:
        lo, hi = cmp.speedup_ci95  # type: ignore[misc]
        p = cmp.speedup
        assert p is not None
        if lo > 1.0 and p >= 1.0 + band:
            cmp.verdict, cmp.reason = "faster", f"graph run is faster: {speed}"
        elif hi < 1.0 and p <= 1.0 - band:
            cmp.verdict, cmp.reason = "slower", f"graph run is slower: {speed}"
        elif lo < 1.0 - band and hi > 1.0 + band:
            cmp.verdict, cmp.reason = "inconclusive", f"step times too noisy to tell: {speed}"
        else:
            cmp.verdict, cmp.reason = "neutral", f"difference within +/-{band:.0%} or not significant: {speed}"
        if cmp.verdict in ("neutral", "slower"):
            cmp.failures.append(make_failure(signature("no-speedup"), None, speed))
            cmp.failures[-1].log = graph.source
    if cmp.warnings:
        cmp.reason += "; the runs are not the same experiment (" + "; ".join(cmp.warnings) + ")"
        f = make_failure(signature("runs-not-comparable"), None, "; ".join(cmp.warnings))
        f.log = graph.source
        cmp.failures.append(f)
    if cmp.loss.get("within_tolerance") is False:
        cmp.reason += f"; loss differs by more than {loss_rtol:.0%} on overlapping iterations"
    return cmp
