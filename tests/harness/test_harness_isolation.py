"""Isolation: a crash, an OOM, a hang and a stray grandchild become classified results, nothing survives."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from skill_tools.harness.isolation import classify, run_isolated

FAKES = Path(__file__).resolve().parents[1] / "harness_fakes"


def _run(tmp_path: Path, *argv: str, timeout_s: float = 60, torchrun: bool = False):
    env = {"PYTHONPATH": os.pathsep.join([str(FAKES), os.environ.get("PYTHONPATH", "")])}
    command = None if torchrun else [sys.executable, "-m", "fake_worker", *argv]
    return run_isolated("fake_worker", list(argv), timeout_s=timeout_s, env=env,
                        log_path=tmp_path / "log.txt", command=command)


#: Ceiling for events that take well under a second on an idle machine (a loaded 2-core CI
#: runner can be much slower); the tests wait for the event, never for a fixed time.
CEILING_S = 300


def _gone(pid: int) -> bool:
    """True once ``pid`` no longer runs (gone or a zombie); False after CEILING_S."""
    end = time.monotonic() + CEILING_S
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.1)
    return False


def test_ok_under_torchrun(tmp_path):
    res = _run(tmp_path, "ok", torchrun=True)
    assert res.ok and res.returncode == 0 and not res.timed_out
    assert "step 1 ok" in res.tail
    assert res.log_path.exists()


def test_crash_is_classified_with_evidence(tmp_path):
    res = _run(tmp_path, "crash")
    assert res.returncode not in (0, None)
    assert res.error_class is not None
    assert "RNG Tracker" in (res.evidence or "")


def test_oom_class(tmp_path):
    res = _run(tmp_path, "oom")
    assert res.error_class in ("oom", "cuda-oom")  # generic class, or the log parser's signature
    assert "out of memory" in (res.evidence or "").lower()


def test_signal_class(tmp_path):
    res = _run(tmp_path, "segv")
    assert res.error_class == "signal_SIGSEGV"


def test_hang_times_out_and_kills_the_grandchild(tmp_path, monkeypatch):
    """The timeout fires once the grandchild exists (its pid file is the event); the test moves
    the harness's clock past the deadline instead of racing torchrun's start-up."""
    import skill_tools.harness.isolation as iso

    pidfile = tmp_path / "child.pid"
    skew = [0.0]
    monkeypatch.setattr(iso, "_now", lambda: time.monotonic() + skew[0])
    out: dict = {}
    job = threading.Thread(target=lambda: out.update(
        res=_run(tmp_path, "spawn_hang", str(pidfile), timeout_s=3600, torchrun=True)))
    job.start()
    end = time.monotonic() + CEILING_S
    while not pidfile.exists() and job.is_alive() and time.monotonic() < end:
        time.sleep(0.1)
    assert pidfile.exists(), "the worker never started its grandchild: " + (tmp_path / "log.txt").read_text()[-2000:]
    skew[0] = 10 * 3600.0  # the deadline passes now
    job.join(CEILING_S)
    assert not job.is_alive()
    res = out["res"]
    assert res.timed_out and res.error_class == "timeout"
    assert _gone(int(pidfile.read_text()))


def test_orphan_left_after_normal_exit_is_killed(tmp_path):
    pidfile = tmp_path / "child.pid"
    res = _run(tmp_path, "orphan", str(pidfile))
    assert res.ok
    assert _gone(int(pidfile.read_text()))


@pytest.mark.parametrize("lines,rc,cls", [
    (["RuntimeError: CUDA error: an illegal memory access was encountered"], 1, "illegal_memory_access"),
    (["RuntimeError: operation not permitted when stream is capturing"], 1, "capture_error"),
    (["torch.OutOfMemoryError: CUDA out of memory."], 1, "oom"),
    (["ValueError: bad"], 1, "exit_1"),
    ([], 0, None),
    ([], -9, "signal_SIGKILL"),
])
def test_classify_generic_classes(monkeypatch, lines, rc, cls):
    import skill_tools.harness.isolation as iso

    monkeypatch.setattr(iso, "_diagnose", lambda lines: None)  # generic classes alone
    assert classify(lines, rc, False)[0] == cls


def test_classify_ignores_torchrun_epilogue(monkeypatch):
    import skill_tools.harness.isolation as iso

    monkeypatch.setattr(iso, "_diagnose", lambda lines: None)
    lines = ["ValueError: the real cause",
             "E1202 12:21:14.503000 1474 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1)",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "]
    assert classify(lines, 1, False) == ("exit_1", "ValueError: the real cause")


def test_classify_prefers_log_parser_signatures(monkeypatch):
    import skill_tools.harness.isolation as iso

    monkeypatch.setattr(iso, "_diagnose", lambda lines: ("te-rng-tracker-required", lines[0]))
    assert classify(["AssertionError: x"], 1, False) == ("te-rng-tracker-required", "AssertionError: x")


def test_classify_real_failed_capture_names_the_error_not_the_advisory_warning(repo):
    """The H200 log has MCore's stale-stream WARNING before the CUDA error: the error is the class."""
    from skill_tools.harness.isolation import classify

    log = repo / "benchmarks" / "results" / "2026-12-02-training-h200-dense-tiny-full_iteration.log"
    cls, evidence = classify(log.read_text().splitlines(), 1, False)
    assert cls == "stale-capture-stream"
    assert "legacy stream depend on a capturing blocking stream" in evidence
