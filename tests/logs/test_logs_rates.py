"""Runs of stacks other than Megatron compared on a rate both logs report (rates.py)."""

from __future__ import annotations

import random

from skill_tools.logs.compare import compare
from skill_tools.logs.parse import parse_lines
from skill_tools.logs.rates import RateLog


def _sglang(throughput: float, graph: bool, n: int = 40) -> list[str]:
    rng = random.Random(7)
    head = ["[2025-01-07 10:10:01 TP0] Capture cuda graph begin. This can take up to several minutes.",
            "[2025-01-07 10:10:31 TP0] Capture cuda graph end. Time elapsed: 30.12 s. mem usage=1.2 GB."] if graph \
        else ["[2025-01-07 10:10:01 TP0] server_args=ServerArgs(disable_cuda_graph=True)"]
    return head + [f"[2025-01-07 10:12:{i % 60:02d} TP0] Decode batch. #running-req: 8, #token: 4096, token usage: "
                   f"0.02, cuda graph: {graph}, gen throughput (token/s): {throughput * rng.uniform(0.97, 1.03):.2f}, "
                   "#queue-req: 0" for i in range(n)]


def test_serving_runs_are_compared_on_decode_throughput_and_swapped_when_given_graph_first():
    eager, graph = parse_lines(_sglang(300, False), "eager"), parse_lines(_sglang(420, True), "graph")
    cmp = compare(eager, graph)
    assert cmp.verdict == "faster" and 1.3 < cmp.speedup < 1.5
    assert cmp.metric["name"] == "sglang decode batch throughput" and cmp.metric["higher_is_better"]
    back = compare(graph, eager)
    assert back.verdict == "faster" and back.swapped


def test_same_speed_is_neutral_with_a_no_speedup_finding():
    cmp = compare(parse_lines(_sglang(300, False), "eager"), parse_lines(_sglang(301, True), "graph"))
    assert cmp.verdict == "neutral" and [f.id for f in cmp.failures] == ["no-speedup"]


def test_different_measures_are_not_comparable_and_say_which():
    vllm = parse_lines(["INFO 01-07 10:12:01 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, "
                        f"Avg generation throughput: {v} tokens/s, Running: 8 reqs" for v in (100, 101, 99, 100)], "v")
    cmp = compare(vllm, parse_lines(_sglang(300, True), "graph"))
    assert cmp.verdict == "inconclusive" and "different measures" in cmp.reason
    assert "vLLM generation throughput" in cmp.reason and "sglang decode batch throughput" in cmp.reason


def test_rate_lines_are_read_the_way_each_tool_prints_them():
    r = RateLog()
    for line in ["Decode.  median latency: 0.01234 s, median throughput:  81.02 token/s",
                 "Output token throughput (tok/s):         1234.5",
                 "Avg latency: 1.5 seconds",
                 " 10%|#         | 5/50 [00:05<00:45,  1.00it/s]\r 12%|#         | 6/50 [00:06<00:44,  2.00s/it]",
                 "INFO metrics.py:351] Avg generation throughput: 0.0 tokens/s, Running: 0 reqs"]:
        r.observe(line)
    assert r.samples == {"median decode throughput": [81.02], "output token throughput": [1234.5],
                         "average latency": [1.5], "progress-bar steps per second": [1.0, 0.5]}
