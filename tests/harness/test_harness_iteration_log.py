"""Harness per-iteration lines: Megatron-LM's training_log text, parsed back by skill_tools.logs.

The end-to-end test builds a harness log the way the worker now prints it, from the real H200
logs committed under benchmarks/results (which predate the per-iteration lines) plus lines
formatted from that run's measured step times, and compares the two with `skill-tools logs`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import math
from datetime import datetime
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.harness.iteration_log import format_iteration_line, iteration_lines
from skill_tools.logs import formats as F
from skill_tools.logs.parse import parse_lines
from skill_tools.logs.steady import detect_capture, steady_state

pytestmark = pytest.mark.legacy

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
RUN = "2026-12-02-training-h200-dense-tiny-same-stream"
TS = datetime(2026, 12, 2, 12, 35, 26, 123456)


def test_line_is_megatron_lm_core_v0_19_training_log_text():
    # Expected text written out from training.py core_v0.19.0 l.2844-2897 (log_interval 1, bf16,
    # no throughput / grad norm / params norm).
    line = format_iteration_line(4, 46, elapsed_ms=27.71, loss=9.2103404, learning_rate=1e-4,
                                 global_batch_size=2, consumed_samples=8, timestamp=TS)
    assert line == (
        " [2026-12-02 12:35:26.123456] iteration        4/      46 | consumed samples:            8 |"
        " elapsed time per iteration (ms): 27.7 | learning rate: 1.000000E-04 | global batch size:     2 |"
        " lm loss: 9.210340E+00 | loss scale: 1.0 | number of skipped iterations:   0 |"
        " number of nan iterations:   0 |"
    )
    assert F.ITERATION_HEAD.search(line) and F.TIMESTAMP_TAIL.search(line[: line.find("iteration ")])


def test_lines_parse_into_iterations_with_their_times_and_losses():
    step_ms = [31.24, 29.9, 30.05, 27.71, 1.85, 1.74]
    losses = [9.21, 9.19, 9.16, 9.12, 9.07, 9.01]
    lines = iteration_lines(step_ms, losses, first=0, train_iters=11, learning_rate=3e-4,
                            global_batch_size=4, timestamp=TS)
    log = parse_lines(lines)
    assert log.format == "megatron-lm"
    assert [it.iteration for it in log.iterations] == [1, 2, 3, 4, 5, 6]
    assert {it.train_iters for it in log.iterations} == {11}
    for it, ms, loss in zip(log.iterations, step_ms, losses):
        assert it.elapsed_ms == pytest.approx(round(ms, 1))
        assert it.losses == {"lm loss": pytest.approx(loss, rel=1e-6)}
        assert it.consumed_samples == 4 * it.iteration
        assert it.learning_rate == pytest.approx(3e-4)
        assert it.global_batch_size == 4
        assert it.loss_scale == 1.0 and it.skipped_iterations == 0 and it.nan_iterations == 0


def test_first_offsets_the_iteration_numbers():
    lines = iteration_lines([2.0, 3.0], [1.0, 1.0], first=5, train_iters=9, learning_rate=1e-4,
                            global_batch_size=2, timestamp=TS)
    assert [it.iteration for it in parse_lines(lines).iterations] == [6, 7]
    with pytest.raises(ValueError):
        iteration_lines([2.0], [1.0, 1.0], first=0, train_iters=9, learning_rate=1e-4, global_batch_size=2)


def test_nan_loss_is_left_out_and_counted_as_megatron_does():
    line = format_iteration_line(7, 9, elapsed_ms=2.0, loss=math.nan, learning_rate=1e-4,
                                 global_batch_size=2, consumed_samples=14, timestamp=TS)
    assert "lm loss" not in line
    (it,) = parse_lines([line]).iterations
    assert it.nan_iterations == 1 and it.has_nan()


# --- end to end: a harness log, eager vs full_iteration -----------------------------------------

def _variant(name: str) -> dict:
    doc = json.loads((RESULTS / f"{RUN}.json").read_text())
    return next(v for v in doc["variants"] if v["name"] == name), doc["workload"]


def _harness_log(name: str) -> tuple[list[str], int]:
    """TEST CONSTRUCTION: the committed real log of ``name`` with per-iteration lines added where
    the worker prints them (warmup steps at the sync before the capture step, so before MCore's
    capture messages; capture, settle and measured steps after the measured loop, so before the
    profiler's warning and the final ``[harness]`` line).

    Measured steps use that run's real ``raw_step_ms``; the committed result has no per-step
    times for the warmup and settle steps nor per-step losses, so those are made up here
    (warmup: the eager median; capture step: the run's ``capture_s``; settle: the first measured
    time; losses: one decreasing sequence for both runs, as their Δloss was 0).
    """
    v, wl = _variant(name)
    warmup, settle = wl["warmup_steps"], wl["settle_steps"]
    eager_ms = _variant("eager")[0]["step_ms"]["median"]
    measured = v["raw_step_ms"]
    step_ms = [eager_ms] * warmup + [v["capture_s"] * 1000.0] + [measured[0]] * settle + measured
    losses = [9.2 - 0.01 * i for i in range(len(step_ms))]
    total = len(step_ms) + 5  # profile_steps (5) are run but not logged
    gbs = wl["micro_batch_size"] * wl["num_microbatches"] * wl["nproc"]
    kw = dict(train_iters=total, learning_rate=1e-4, global_batch_size=gbs, timestamp=TS)
    before_capture = iteration_lines(step_ms[:warmup], losses[:warmup], first=0, **kw)
    after_loop = iteration_lines(step_ms[warmup:], losses[warmup:], first=warmup, **kw)

    real = (RESULTS / f"{RUN}-{name}.log").read_text().splitlines()
    assert not parse_lines(real).iterations  # the committed logs have no iteration lines
    at_capture = next((i for i, ln in enumerate(real) if "Capture CUDA graph for training" in ln), None)
    at_end = next(i for i, ln in enumerate(real) if "torch/profiler" in ln or "phase=done" in ln)
    if at_capture is None:  # eager: nothing is printed between the two groups
        at_capture = at_end
    lines = real[:at_capture] + before_capture + real[at_capture:at_end] + after_loop + real[at_end:]
    return lines, warmup


def test_harness_logs_compare_faster_with_capture_at_the_capture_step(tmp_path, capsys):
    eager_lines, warmup = _harness_log("eager")
    graph_lines, _ = _harness_log("full_iteration")

    graph = parse_lines(graph_lines)
    cap = detect_capture(graph)
    # Capture at 0-based step index warmup_steps = Megatron iteration warmup_steps + 1.
    assert cap.detected and cap.impl == "full_iteration" and cap.iteration == warmup + 1
    steady = steady_state(graph)
    assert steady.used_range[0] == warmup + 2 and steady.excluded == {
        "before capture (eager warmup)": warmup, "warmup and capture": 1}

    (tmp_path / "eager.log").write_text("\n".join(eager_lines) + "\n")
    (tmp_path / "graph.log").write_text("\n".join(graph_lines) + "\n")
    code = main(["logs", str(tmp_path / "eager.log"), str(tmp_path / "graph.log"), "--json", "--no-iterations"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out["failures"]
    assert out["logs"]["eager"]["format"] == out["logs"]["graph"]["format"] == "megatron-lm"
    assert out["logs"]["graph"]["capture"]["iteration"] == warmup + 1
    assert not out["logs"]["eager"]["capture"]["detected"]
    cmp = out["comparison"]
    assert cmp["verdict"] == "faster" and not cmp["swapped_inputs"]
    # The medians come back as the harness measured them (to the 0.1 ms the line prints).
    assert cmp["graph_median_ms"] == pytest.approx(_variant("full_iteration")[0]["step_ms"]["median"], abs=0.06)
    assert cmp["eager_median_ms"] == pytest.approx(_variant("eager")[0]["step_ms"]["median"], abs=0.5)
    assert cmp["loss"]["overlapping_iterations"] == len(graph.iterations)
    assert cmp["loss"]["keys"]["lm loss"]["max_abs_delta"] == 0.0 and cmp["loss"]["within_tolerance"]


def test_module_imports_without_torch():
    code = "import sys, skill_tools.harness.iteration_log; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@pytest.mark.gpu
def test_worker_logs_compare_with_skill_tools_logs(dense_shared_run):
    """On a GPU: the worker's own logs carry one line per logged step with its measured time, and
    `skill-tools logs` puts the capture at iteration warmup_steps + 1 and calls the graph faster."""
    from skill_tools.logs.compare import compare
    from skill_tools.logs.parse import parse_path

    eager, graphed = dense_shared_run["eager"], dense_shared_run["full_iteration"]
    assert graphed["error_class"] is None, graphed["evidence"]
    e_log, g_log = (parse_path(v["trials"][0]["log"]) for v in (eager, graphed))
    logged = 3 + 1 + 1 + 6  # warmup, capture, settle, measured; profiled steps are not logged
    assert [it.iteration for it in g_log.iterations] == list(range(1, logged + 1))
    for it, ms in zip(g_log.iterations[-6:], graphed["raw_step_ms"]):
        assert it.elapsed_ms == pytest.approx(ms, abs=0.051)
    assert detect_capture(g_log).iteration == 3 + 1
    assert compare(e_log, g_log).verdict == "faster"
