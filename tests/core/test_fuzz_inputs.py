"""No input crashes the helpers: validate/apply/recommend/logs/evals score under hypothesis.

Each example must end with exit 0, 1 or 2 (2 with a message), no traceback, within a time and
memory ceiling per input (tests/fuzz_inputs.py: generous, they catch unbounded work, they do not
race the clock). The regressions below are the inputs that crashed or hung before, each pinned.
benchmarks/bench_fuzz.py runs the same generators much longer and reports counts.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_inputs import (EXAMPLES, LOGS, answer_lines, config_texts, log_texts, mutated_files, run_cli)

REPO = Path(__file__).resolve().parents[2]
FUZZ = settings(max_examples=int(os.environ.get("SKILL_TOOLS_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], derandomize=True)
SCRATCH = Path(tempfile.mkdtemp(prefix="skill-tools-fuzz-"))
CONFIG_COMMANDS = [["validate"], ["validate", "--json"], ["recommend"], ["recommend", "--json"],
                   ["apply", "--impl", "full_iteration"], ["apply", "--impl", "transformer_engine", "--scope", "attn,mlp"],
                   ["apply", "--impl", "local", "--mcore-version", "0.16.1", "--json"],
                   ["validate", "--mcore-version", "0.16.1"]]


def _file(text: str, suffix: str) -> str:
    path = SCRATCH / f"input{suffix}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return str(path)


def _one_line_if_bad_input(outcome) -> None:
    if outcome.rc == 2:
        lines = [ln for ln in outcome.stderr.strip().splitlines() if ln.strip()]
        usage = lines and lines[0].startswith("usage:")  # argparse's own two-line refusal
        assert usage or len(lines) == 1, outcome.stderr


@FUZZ
@given(config_texts(), st.sampled_from(CONFIG_COMMANDS))
def test_generated_configs(case, command):
    text, suffix = case
    _one_line_if_bad_input(run_cli([command[0], _file(text, suffix), *command[1:]]))


@FUZZ
@given(mutated_files(EXAMPLES), st.sampled_from(CONFIG_COMMANDS))
def test_mutated_examples(case, command):
    text, suffix = case
    _one_line_if_bad_input(run_cli([command[0], _file(text, suffix), *command[1:]]))


@FUZZ
@given(st.one_of(log_texts(), mutated_files(LOGS).map(lambda c: c[0])), st.booleans())
def test_logs(text, as_json):
    _one_line_if_bad_input(run_cli(["logs", _file(text, ".log"), *(["--json"] if as_json else [])]))


@FUZZ
@given(log_texts(), log_texts())
def test_logs_compare(eager, graph):
    a, b = SCRATCH / "eager.log", SCRATCH / "graph.log"
    a.write_text(eager, errors="surrogatepass")
    b.write_text(graph, errors="surrogatepass")
    _one_line_if_bad_input(run_cli(["logs", str(a), str(b)]))


@settings(FUZZ, max_examples=max(10, FUZZ.max_examples // 3))
@given(answer_lines())
def test_evals_score(lines):
    path = _file(lines, ".jsonl")
    _one_line_if_bad_input(run_cli(["evals", "score", "--answers", path, "--evals", str(REPO / "evals" / "evals.json")]))


# --------------------------------------------------------------------------------------------
# the inputs that crashed or hung before, pinned
# --------------------------------------------------------------------------------------------

BOMB = ('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        + "".join(f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n" for p, c in zip("abcdefgh", "bcdefghi")))
WIDE_BOMB = ("a: &a [" + ",".join(["x"] * 5000) + "]\nb: &b [" + ",".join(["*a"] * 10) + "]\n"
             "c: [" + ",".join(["*b"] * 9) + "]\n")
BLOCK_DEEP = "model:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(990)) + "  " * 991 + "v\n"


@pytest.mark.parametrize("text,suffix,needle", [
    ("[" * 100_000 + "]" * 100_000, ".json", "nest"),
    ('{"model": {"num_layers": ' + "9" * 5000 + "}}", ".json", "digits"),
    ("model:\n  num_layers: " + "9" * 5000 + "\n", ".yaml", "digits"),
    ("cfg.model.num_layers = 0x" + "f" * 5000 + "\n", ".py", "digits"),
    ("cfg.model.cuda_graph_impl = " + "not " * 100_000 + "1\n", ".py", "nested"),
    ("cfg.model.num_layers = " + "-" * 100_000 + "1\n", ".py", "nested"),
    ("model:\n  cuda_graph_scope: " + "[" * 990 + "]" * 990 + "\n", ".yaml", "nest"),
    (BLOCK_DEEP, ".yaml", "nest"),
    (BOMB, ".yaml", "alias"),
    (WIDE_BOMB, ".yaml", "alias"),
    ("a: &a [*a]\n", ".yaml", "itself"),
])
@pytest.mark.parametrize("command", [["validate"], ["apply", "--impl", "full_iteration"], ["recommend"]])
def test_hostile_configs_are_refused_in_one_line(text, suffix, needle, command):
    out = run_cli([command[0], _file(text, suffix), *command[1:]])
    assert out.rc == 2 and needle in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_run_script_bad_int_flag_is_a_finding():
    path = _file("python scripts/performance/run_script.py --activation_offload_layers abc "
                 "--cuda_graph_impl transformer_engine\n", ".sh")
    out = run_cli(["validate", path])
    assert out.rc == 1 and "invalid int value: 'abc'" in out.stdout


def test_deep_and_huge_answers_lines_are_limit_findings():
    """Like an oversized line: the line is not read and the report says why."""
    path = _file('{"id": "x", "answer": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
                 '{"id": "y", "answer": ' + "9" * 5000 + "}\n", ".jsonl")
    out = run_cli(["evals", "score", "--json", "--answers", path, "--evals", str(REPO / "evals" / "evals.json")])
    assert out.rc in (0, 1) and "levels deep" in out.stdout and "digits" in out.stdout


def test_zero_ms_step_in_logs_compare():
    line = " iteration {i:>8}/      10 | elapsed time per iteration (ms): {ms} | lm loss: 1.0 |"
    a, b = SCRATCH / "zero-a.log", SCRATCH / "zero-b.log"
    a.write_text("\n".join(line.format(i=i, ms=0.0) for i in range(1, 11)))
    b.write_text("\n".join(line.format(i=i, ms=10.0) for i in range(1, 11)))
    assert run_cli(["logs", str(a), str(b)]).rc in (0, 1, 2)


def test_garbled_timestamp_in_an_iteration_line():
    """Found by benchmarks/bench_fuzz.py: numpy refused the whole timestamp column."""
    line = " [2026-07-28 10:{mm}:00.793880] iteration {i:>8}/      10 | elapsed time per iteration (ms): 5.0 |"
    path = SCRATCH / "garbled-ts.log"
    path.write_text("\n".join(line.format(i=i, mm="0nan0" if i == 3 else "00") for i in range(1, 11)) + "\n")
    assert run_cli(["logs", str(path), "--json"]).rc in (0, 1)


def test_missing_file_says_not_found():
    out = run_cli(["validate", str(SCRATCH / "nope.yaml")])
    assert out.rc == 2 and "no such file" in out.stderr


@pytest.mark.parametrize("argv,needle", [
    (["--mcore-version", "0.99.0"], "newer than the newest release"),
    (["--te-version", "banana"], "--te-version"),
])
def test_version_arguments(argv, needle):
    out = run_cli(["validate", str(REPO / "examples" / "bridge_llama_dense_fixed.yaml"), *argv])
    assert needle in out.stderr
    if "newer" in needle:
        assert out.rc == 0 and "0.18+" in out.stderr
    else:
        assert out.rc == 2 and "--mcore-version" not in out.stderr


# --------------------------------------------------------------------------------------------
# apply --out: what a careful editor does
# --------------------------------------------------------------------------------------------

SRC = REPO / "examples" / "bridge_llama_dense_fixed.yaml"


def _apply(*out_args: str):
    return run_cli(["apply", str(SRC), "--impl", "full_iteration", *out_args])


@pytest.mark.parametrize("target,needle", [(".", "folder"), ("missing/x.yaml", "does not exist"),
                                           ("/dev/null", "character device"), ("sub/", "folder")])
def test_apply_out_refuses_non_files(tmp_path, monkeypatch, target, needle):
    monkeypatch.chdir(tmp_path)
    out = _apply("--out", target)
    assert out.rc == 2 and needle in out.stderr and ".tmp" not in out.stderr, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_apply_out_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = _apply("--out", str(fifo))
    assert out.rc == 2 and "FIFO" in out.stderr and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_apply_dash_is_stdout_and_stdin_cannot_be_rewritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = _apply("--out", "-")
    assert out.rc == 0 and "cuda_graph_impl: full_iteration" in out.stdout and not list(tmp_path.iterdir())
    bad = run_cli(["apply", "-", "--in-place", "--impl", "local"])
    assert bad.rc == 2 and "standard input" in bad.stderr and not list(tmp_path.iterdir())


def test_apply_new_file_honours_umask_and_existing_keeps_mode_and_symlink(tmp_path):
    old = os.umask(0o022)
    try:
        new = tmp_path / "new.yaml"
        assert _apply("--out", str(new)).rc == 0
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        real = tmp_path / "real.yaml"
        real.write_text(SRC.read_text())
        os.chmod(real, 0o2750)
        link = tmp_path / "link.yaml"
        link.symlink_to(real.name)
        assert run_cli(["apply", str(link), "--impl", "full_iteration", "--in-place"]).rc == 0
        assert link.is_symlink() and "full_iteration" in real.read_text()
        assert stat.S_IMODE(real.stat().st_mode) == 0o2750
        assert sorted(p.name for p in tmp_path.iterdir()) == ["link.yaml", "new.yaml", "real.yaml"]
    finally:
        os.umask(old)
