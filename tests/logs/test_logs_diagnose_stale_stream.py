"""The stale-capture-stream signature on the committed H200 logs (benchmarks/results/).

torch 2.11 lacks ``set_override_stale_capture_stream``; with MCore DDP on the default stream the
capture fails with cudaErrorStreamCaptureImplicit. That error must be diagnosed as
stale-capture-stream, and be the first failure (the harness's error_class), not the generic
stream-capture-invalidated whose fix sends users the wrong way. MCore's advisory warning also
appears in runs that captured fine, so it must not count as a failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skill_tools.logs.parse import diagnose_lines

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
pytestmark = pytest.mark.legacy


def _failures(name: str):
    return diagnose_lines((RESULTS / name).read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize(
    "log, error_line",
    [
        ("2026-12-02-training-h200-dense-tiny-full_iteration.log", 75),
        ("2026-12-02-training-h200-moe-tiny-te_attn-moe_router-moe_preprocess.log", 132),
    ],
)
def test_capture_implicit_error_is_the_stale_capture_stream(log: str, error_line: int) -> None:
    failures = _failures(log)
    first = failures[0]
    assert first.id == "stale-capture-stream" and first.severity == "error"
    assert first.line_no == error_line
    assert "operation would make the legacy stream depend on a capturing blocking stream" in first.evidence
    assert "set_override_stale_capture_stream" in first.fix and "get_shared_capture_stream" in first.fix
    assert first.count == 2  # the error line and its `cudaErrorStreamCaptureImplicit` search hint
    assert "stale-capture-stream" not in [f.id for f in failures[1:]]


def test_successful_same_stream_capture_is_clean() -> None:
    log = RESULTS / "2026-12-02-training-h200-dense-tiny-same-stream-full_iteration.log"
    assert "set_override_stale_capture_stream is not available" in log.read_text(encoding="utf-8")
    assert _failures(log.name) == []
