"""`skill-tools logs A B` on eager/graph pairs from other stacks, cut from public threads.

- sglang PR #1401 (sgl-project/sglang/pull/1401): `bench_latency` summaries, triton backend with and
  without `--disable-cuda-graph` (sg1401_*.log);
- sglang PR #14044: `benchmark/gsm8k/bench_sglang.py` summaries, decode graphs on/off (sg14044_*.log);
- metaseq PR #270 (facebookresearch/metaseq/pull/270): per-token latency stated in a sentence (metaseq_*.log);
- pytorch/benchmark PR #706: TorchBench `run.py` resnet50 train, eager vs `--train_cudagraph` (GPU time,
  CPU dispatch time, CPU total wall time: a CPU-dispatch vs GPU-time pair; tb706_*.log);
- sglang PR #13023: scheduler decode-batch lines (sg13023_decode.log), a different measure than a
  `bench_latency` summary.
Comparable pairs are compared on the rate both report; the others are refused with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_tools import cli

PAIRS = Path(__file__).resolve().parent.parent / "fixtures" / "logs" / "pairs"


def _compare(capsys, eager: str, graph: str) -> dict:
    rc = cli.main(["logs", str(PAIRS / eager), str(PAIRS / graph), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1) and out["kind"] == "comparison"
    return out["comparison"]


def test_bench_latency_pair_is_compared_on_median_decode_throughput(capsys):
    c = _compare(capsys, "sg1401_eager.log", "sg1401_graph.log")
    assert "median decode throughput" in c["reason"] and "1.314x" in c["reason"]


def test_bench_sglang_pair_is_compared_on_output_throughput(capsys):
    c = _compare(capsys, "sg14044_eager.log", "sg14044_graph.log")
    assert "benchmark output throughput" in c["reason"] and "2.673x" in c["reason"]


def test_cpu_dispatch_vs_gpu_time_pair_is_compared_on_wall_time_with_the_breakdown(capsys):
    c = _compare(capsys, "tb706_eager.log", "tb706_graph.log")
    assert "TorchBench CPU total wall time" in c["reason"] and "0.995x" in c["reason"]
    assert "CPU dispatch 1027 -> 346.3 ms (2.97x less)" in c["reason"]
    assert "GPU-bound" in c["reason"] and "no wall-time gain is expected" in c["reason"]


@pytest.mark.parametrize("eager,graph,why", [
    ("metaseq_eager.log", "metaseq_graph.log", "no per-step times"),
    ("sg1401_eager.log", "sg13023_decode.log", "different measures"),
])
def test_pairs_without_a_common_measure_are_refused_with_the_reason(capsys, eager, graph, why):
    c = _compare(capsys, eager, graph)
    assert c["verdict"] == "inconclusive" and why in c["reason"]
