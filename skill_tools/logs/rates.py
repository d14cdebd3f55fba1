"""Per-step and per-batch rates that stacks other than Megatron log, so two such runs can be compared.

Megatron-LM and Bridge log one iteration line per step (iterations.py); serving and benchmark
scripts log other measures of the same thing. Each measure below is read from its own line format,
with its unit and whether higher is better:

- SGLang scheduler, one line per decode batch: ``gen throughput (token/s): 1234.56``;
- vLLM engine stats, every few seconds: ``Avg generation throughput: 123.4 tokens/s``;
- SGLang ``bench_one_batch``: ``Decode.  median latency: 0.0123 s, median throughput:  81.02 token/s``;
- vLLM ``benchmark_serving`` / ``bench serve``: ``Output token throughput (tok/s): 123.4``;
- vLLM ``benchmark_latency``: ``Avg latency: 1.23 seconds``;
- SGLang ``benchmark/*/bench_sglang.py``: ``Output throughput: 4113.320 token/s``;
- TorchBench ``run.py``: ``GPU Time: / CPU Dispatch Time: / CPU Total Wall Time: 1034.0 milliseconds``; compared
  on wall time, with the dispatch-vs-GPU breakdown (graphs remove CPU dispatch; they cannot shorten GPU time);
- tqdm progress bars (``12/50 [00:10<00:30,  1.20it/s]`` or ``s/it``): steps per second.

Two runs are comparable on a measure both log; ``compare_rates`` says which measure was used or why
none could be.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from skill_tools.stats import ratio_ci

MAX_SAMPLES = 100_000  # per measure; a serving log rarely has more stat lines than this


@dataclass(frozen=True)
class Measure:
    name: str
    unit: str
    higher_is_better: bool
    gate: str  # a literal every matching line contains (keeps the scan cheap)
    pattern: re.Pattern[str]


WALL, GPU, DISPATCH = "TorchBench CPU total wall time", "TorchBench GPU time", "TorchBench CPU dispatch time"
MEASURES: tuple[Measure, ...] = (
    Measure("sglang decode batch throughput", "tokens/s", True, "gen throughput (token/s)",
            re.compile(r"gen throughput \(token/s\): *([\d.]+)")),
    Measure("vLLM generation throughput", "tokens/s", True, "Avg generation throughput",
            re.compile(r"Avg generation throughput: *([\d.]+) tokens/s")),
    Measure("median decode throughput", "tokens/s", True, "median throughput",
            re.compile(r"median throughput: *([\d.]+) token/s")),
    Measure("output token throughput", "tokens/s", True, "Output token throughput",
            re.compile(r"Output token throughput \(tok/s\): *([\d.]+)")),
    Measure("average latency", "s", False, "Avg latency:", re.compile(r"Avg latency: *([\d.]+) seconds")),
    # SGLang benchmark/*/bench_sglang.py summary: "Output throughput: 4113.320 token/s"
    Measure("benchmark output throughput", "tokens/s", True, "Output throughput:",
            re.compile(r"Output throughput: *([\d.]+) token/s")),
    # TorchBench run.py (pytorch/benchmark): wall time first - it is what a user waits for; the CPU dispatch and
    # GPU times beside it say which of the two bounds the run (see breakdown())
    Measure(WALL, "ms", False, "CPU Total Wall Time:",
            re.compile(r"CPU Total Wall Time: *([\d.]+) milliseconds")),
    Measure(GPU, "ms", False, "GPU Time:", re.compile(r"^\s*GPU Time: *([\d.]+) milliseconds")),
    Measure(DISPATCH, "ms", False, "CPU Dispatch Time:", re.compile(r"CPU Dispatch Time: *([\d.]+) milliseconds")),
    Measure("progress-bar steps per second", "it/s", True, "it/s]",
            re.compile(r"\d+/\d+ \[[\d:]+<[\d:?]+, *([\d.]+)(it/s|s/it)\]")),
)
#: a line holds a rate only if it contains one of these (checked before any pattern)
GATES = ("throughput", "Avg latency", "it/s]", "s/it]", "Wall Time:", "GPU Time:", "Dispatch Time:")
_IDLE = ("#running-req: 0,", "Running: 0 reqs")  # idle engine stats say nothing about speed


@dataclass
class RateLog:
    """Samples per measure name, in log order."""

    samples: dict[str, list[float]] = field(default_factory=dict)

    def observe(self, text: str) -> None:
        if any(i in text for i in _IDLE):
            return
        for m in MEASURES:
            if m.gate not in text and not (m.unit == "it/s" and "s/it]" in text):
                continue
            for hit in m.pattern.finditer(text):  # a tqdm line carries every \r-update of the bar
                value = float(hit.group(1))
                if m.unit == "it/s" and hit.group(2) == "s/it":
                    value = 1.0 / value if value else 0.0
                if value > 0:
                    got = self.samples.setdefault(m.name, [])
                    if len(got) < MAX_SAMPLES:
                        got.append(value)

    def to_dict(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.samples.items()}


def _steady(values: list[float]) -> list[float]:
    """Drop the first fifth (warm-up, capture) when there are enough samples to spare."""
    return values[len(values) // 5:] if len(values) >= 5 else values


def compare_rates(eager: RateLog, graph: RateLog, *, band: float, seed: int = 0) -> dict[str, Any]:
    """Verdict on the measure both runs log (most samples first), or the reason none is comparable."""
    shared = [m for m in MEASURES if m.name in eager.samples and m.name in graph.samples]
    if not shared:
        have = {n: sorted(r.samples) for n, r in (("eager", eager), ("graph", graph))}
        if not any(have.values()):
            return {"verdict": "inconclusive", "reason": ""}
        said = "; ".join(f"{n} log: {', '.join(v) if v else 'none'}" for n, v in have.items())
        return {"verdict": "inconclusive",
                "reason": f"the two logs report different measures ({said}): not comparable"}
    m = max(shared, key=lambda x: min(len(eager.samples[x.name]), len(graph.samples[x.name])))
    extra = breakdown(eager, graph)
    e, g = _steady(eager.samples[m.name]), _steady(graph.samples[m.name])
    base, var = (g, e) if m.higher_is_better else (e, g)  # speedup > 1 means the graph run is faster
    point, lo, hi = ratio_ci(base, var, seed=seed)
    where = (f"{m.name} ({m.unit}, {'higher' if m.higher_is_better else 'lower'} is better): eager median "
             f"{sorted(e)[len(e) // 2]:.4g} over {len(e)}, graph median {sorted(g)[len(g) // 2]:.4g} over {len(g)}")
    metric = {"name": m.name, "unit": m.unit, "higher_is_better": m.higher_is_better,
              "eager_samples": len(e), "graph_samples": len(g)}
    if min(len(e), len(g)) < 3:
        return {"verdict": "inconclusive", "speedup": point, "metric": metric,
                "reason": f"too few samples to tell (need 3 each): {where}; speedup {point:.3f}x{extra}"}
    speed = f"speedup {point:.3f}x (95% CI {lo:.3f}-{hi:.3f}) on {where}"
    if lo > 1.0 and point >= 1.0 + band:
        verdict = "faster"
    elif hi < 1.0 and point <= 1.0 - band:
        verdict = "slower"
    elif lo < 1.0 - band and hi > 1.0 + band:
        verdict = "inconclusive"
    else:
        verdict = "neutral"
    label = {"faster": "graph run is faster", "slower": "graph run is slower",
             "inconclusive": "too noisy to tell", "neutral": f"difference within +/-{band:.0%} or not significant"}
    return {"verdict": verdict, "speedup": point, "ci95": (lo, hi), "metric": metric,
            "reason": f"{label[verdict]}: {speed}{extra}"}


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def breakdown(eager: RateLog, graph: RateLog) -> str:
    """For a pair that logs CPU dispatch time and GPU time: which one bounds each run, and what graphs changed.
    Graphs replace per-kernel launches by one, so they shrink CPU dispatch; GPU time is the floor they leave."""
    if not all(n in r.samples for n in (DISPATCH, GPU) for r in (eager, graph)):
        return ""
    (ed, eg), (gd, gg) = ((_median(r.samples[DISPATCH]), _median(r.samples[GPU])) for r in (eager, graph))
    bound = "GPU-bound (GPU time >= CPU dispatch)" if eg >= ed * 0.95 else "CPU-bound (dispatch > GPU time)"
    after = "GPU-bound" if gg >= gd * 0.95 else "still CPU-bound"
    return (f"; breakdown: CPU dispatch {ed:.4g} -> {gd:.4g} ms ({ed / gd:.2f}x less), GPU time {eg:.4g} -> "
            f"{gg:.4g} ms: the eager run was {bound}, the graph run is {after}"
            + ("; graphs cannot go below the GPU time, so no wall-time gain is expected here" if eg >= ed * 0.95 else ""))
