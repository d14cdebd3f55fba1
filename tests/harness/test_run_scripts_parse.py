"""The GPU run scripts' calls of ``skill-tools bench --mode inference`` are judged by bench's own parser.

A run script is executed once per GPU session; an argument bench does not take costs that
session's pass (``--name`` was one). Here the script runs for real with ``PYTHON`` set to a wrapper
that adds ``--dry-run`` to every ``skill_tools bench --mode inference`` call, so bench's argparse
and its pre-GPU checks see exactly the command lines the script builds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = [("run-inference-hybrid-h200.sh", []),
           ("run-inference-mamba-h200.sh", ["bi-local"]), ("run-inference-mamba-h200.sh", ["mamba"])]


@pytest.mark.parametrize("script, extra", SCRIPTS)
def test_inference_script_calls_parse(tmp_path, script, extra):
    calls = tmp_path / "calls.txt"
    wrapper = tmp_path / "py"
    wrapper.write_text(
        "#!/usr/bin/env bash\n"
        'if [[ " $* " == *" skill_tools bench --mode inference "* ]]; then\n'
        f'  "{sys.executable}" "$@" --dry-run >/dev/null 2>"$0.err"; rc=$?\n'
        f'  echo "$rc $*" >> "{calls}"; cat "$0.err" >&2; exit $rc\n'
        "fi\n"
        f'exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PYTHON": str(wrapper), "PYTHONPATH": str(REPO), "BUDGET_S": "100000"}
    proc = subprocess.run(["bash", str(REPO / "benchmarks" / script), str(tmp_path / "out"), *extra], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)
    lines = calls.read_text().splitlines() if calls.exists() else []
    assert lines, proc.stdout + proc.stderr
    bad = [line for line in lines if not line.startswith("0 ")]
    assert not bad, "bench calls bench's parser refuses:\n" + "\n".join(bad) + "\n" + proc.stderr[-2000:]
    # the batch-invariant pass is among them (it was the call that failed on the GPU)
    assert any("--batch-invariant-only" in line for line in lines)
