"""A failed inference run as recorded: the cause read from the worker's own log, no machine paths.

Input not written here: the worker logs of ``tiny-fp32-residual`` run on the H200
(``benchmarks/results/2026-12-03-inference-model-class-h200-logs/``). megatron-core's engine first
handles a ``RuntimeError: no running event loop`` and, while handling it, TE raises the dtype
``TypeError`` that ends the run; the verdict must name the TypeError's signature.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

from skill_tools.harness.inference import runner as R
from skill_tools.harness.isolation import classify
from skill_tools.logs.parse import parse_path
from skill_tools.logs.verdict import build

LOGS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "2026-12-03-inference-model-class-h200-logs"


@pytest.mark.parametrize("scope", ["none", "block"])
def test_the_dtype_error_raised_while_handling_is_the_cause(scope):
    path = LOGS / f"inference-tiny-fp32-residual-{scope}.log.gz"
    verdict = build(parse_path(path))
    ids = [f.id for f in verdict.failures]
    assert "te-input-dtype-mismatch" in ids and "uncaught-exception" not in ids, ids
    with gzip.open(path, "rt") as fh:
        error_class, evidence = classify(fh.read().splitlines(), 1, False)
    assert error_class == "te-input-dtype-mismatch" and "Data types for parameters must match" in evidence


def test_failed_results_record_relative_log_paths_and_no_install_folders(tmp_path):
    out = tmp_path / "results"
    failure = {"scope": "none", "ok": False, "returncode": 1, "timed_out": False,
               "error_class": "uncaught-exception", "log_path": str(out / "logs" / "x.log"),
               "evidence": "RuntimeError: boom [innermost frame /srv/site/megatron/core/inference/x.py:1 in f]",
               "tail": 'File "/opt/venv/lib/python3.12/site-packages/torch/distributed/run.py", line 9'}
    args = argparse.Namespace(date="2026-12-03", name=None)
    path = R.write_failed(args, "tiny-fp32-residual", [failure], out)
    doc = json.loads(path.read_text())
    rec = doc["failures"][0]
    assert rec["log_path"] == "logs/x.log"
    assert rec["evidence"].endswith("[innermost frame <site-packages>/megatron/core/inference/x.py:1 in f]")
    assert rec["tail"].startswith('File "<site-packages>/torch/distributed/run.py"')
    assert failure["log_path"].startswith(str(tmp_path))  # the caller's record is left as it was
