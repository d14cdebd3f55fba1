"""`skill-tools logs --json`: bounded, versioned, valid against its published schema; rows streamed
only on request; refused input is JSON too under --json."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from skill_tools.cli import main

REPO = Path(__file__).resolve().parents[2]
FIX = REPO / "tests" / "fixtures" / "logs"
SCHEMA = json.loads((REPO / "skill_tools" / "schemas" / "logs.schema.json").read_text())
pytestmark = pytest.mark.legacy


def _validate(doc: dict) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)


def _run(capsys, *argv: str) -> tuple[int, dict]:
    rc = main(["logs", *argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fixture", ["synthetic_mlm_full_iteration.log", "bridge_pr3856_rng_tracker.log",
                                     "te_issue2543_capture_traceback.log", "mlm_issue1525_nccl_watchdog.log",
                                     "synthetic_mlm_full_iteration.log.gz"])
def test_one_log_is_valid_against_the_schema(capsys, fixture):
    rc, out = _run(capsys, str(FIX / fixture))
    assert rc in (0, 1)
    _validate(out)
    assert out["schema_version"] == 1 and out["kind"] == "log" and out["iterations"] is None


def test_comparison_is_valid_against_the_schema(capsys):
    rc, out = _run(capsys, str(FIX / "synthetic_bridge_eager.log"), str(FIX / "synthetic_bridge_te_scoped.log"))
    _validate(out)
    assert out["kind"] == "comparison" and rc == 1


def test_refused_input_is_json_under_json(capsys, tmp_path):
    nb = tmp_path / "run.ipynb"
    nb.write_text('{"cells": [], "nbformat": 4}')
    rc, out = _run(capsys, str(nb))
    _validate(out)
    assert rc == 2 and out["ok"] is False and "notebook" in out["error"]["message"]
    rc, out = _run(capsys, str(tmp_path / "missing.log"))
    assert rc == 2 and out["ok"] is False and out["error"]["kind"] == "input"


def test_json_stays_small_on_a_long_log_and_rows_stream_to_a_file(capsys, tmp_path):
    line = (" [2026-07-28 10:00:{s:02d}.{us:06d}] iteration {i:8d}/   20000 | consumed samples: {c:12d} | "
            "elapsed time per iteration (ms): {t:.1f} | learning rate: 1.0E-04 | global batch size:   128 | "
            "lm loss: 8.0E+00 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 | "
            "number of nan iterations:   0 |")
    log = tmp_path / "long.log"
    log.write_text("\n".join(line.format(s=i % 60, us=i, i=i, c=128 * i, t=900.0 + i % 7) for i in range(1, 20001)))
    rc, out = _run(capsys, str(log))
    _validate(out)
    assert out["iteration_count"] == 20000
    assert len(json.dumps(out)) < 100_000  # bounded: independent of the number of iterations
    rows = tmp_path / "rows.jsonl"
    rc2 = main(["logs", str(log), "--json", "--iterations", str(rows)])
    out2 = json.loads(capsys.readouterr().out)
    assert rc2 == rc and out2["iterations_file"] == str(rows)
    lines = rows.read_text().splitlines()
    assert len(lines) == 20000 and json.loads(lines[-1])["iteration"] == 20000


def test_plain_text_is_read_with_nothing_to_read(capsys, tmp_path):
    p = tmp_path / "notes.log"
    p.write_text("hello\nthis is not a training log\n")
    rc, out = _run(capsys, str(p))
    _validate(out)
    assert rc == 0 and out["format"] == "plain-text" and out["failures"] == []
    assert any(n.startswith("nothing to read") for n in out["verdict"]["notes"])


def test_a_document_quoting_error_messages_is_refused_not_read(capsys):
    # the signature catalog holds every needle and example log line, but it is a YAML document
    rc, out = _run(capsys, str(REPO / "skill_tools" / "logs" / "signatures.yaml"))
    _validate(out)
    assert rc == 2 and out["ok"] is False and "YAML" in out["error"]["message"]
    rc = main(["logs", str(REPO / "skill_tools" / "logs" / "parse.py")])
    err = capsys.readouterr().err
    assert rc == 2 and "Python source" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("text", ["[" * 100_000, "h" + "{" * 100_000, "x = " + "(" * 100_000],
                         ids=["json-array", "python-braces", "python-parens"])
def test_text_nested_deeper_than_pythons_parsers_is_read_not_a_crash(capsys, tmp_path, text):
    """json.loads raises RecursionError and ast.parse MemoryError ("parser stack overflowed") on such
    nesting (found by benchmarks/bench_fuzz_hostile.py, seed 33): the text is read as plain text."""
    log = tmp_path / "nested.log"
    log.write_text(text)
    rc, out = _run(capsys, str(log))
    _validate(out)
    assert rc == 0 and out["format"] == "plain-text"


def test_python_like_text_with_odd_literals_prints_no_python_warning(tmp_path):
    """ast.parse warns on stderr about "0xfffis" (a number glued to a keyword; found by the seed-34 fuzz run); text read
    as a possible Python source is parsed quietly (skill_tools.config.pysource). A subprocess: pytest
    itself would catch the warning."""
    import subprocess
    import sys

    log = tmp_path / "odd.log"
    log.write_text("hello\nthis 0x" + "f" * 300 + "is not a training log\n")
    out = subprocess.run([sys.executable, "-m", "skill_tools", "logs", str(log), "--json"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "Warning" not in out.stderr, out.stderr
