"""`evals run`: the question reaches the agent as stdin, a file and an environment variable, never in
argv or a shell string; the agent works in a copy of the task's workspace; timeouts and retries."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.errors import InputError
from skill_tools.evaluation.agent_run import build_argv, call_agent, collect, parse_template
from skill_tools.evaluation.tasks import Task

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"

AGENT = """import json, os, sys
log = os.environ["AGENT_LOG"]
stdin = sys.stdin.read()
with open(log, "a") as fh:
    fh.write(json.dumps({"argv": sys.argv[1:], "skill": os.environ.get("SKILL_DIR"), "stdin": stdin,
                         "env": os.environ.get("SKILL_EVAL_QUESTION"), "cwd": os.getcwd(),
                         "file": open(os.environ["SKILL_EVAL_QUESTION_FILE"]).read()}) + "\\n")
print("Profile first. Use transformer_engine with static shapes.")
"""


@pytest.fixture
def agent(tmp_path, monkeypatch):
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("AGENT_LOG", str(log))
    return script, log


def test_question_travels_as_data_never_in_argv(agent, tmp_path):
    script, log = agent
    canary = tmp_path / "CANARY"
    q = f"x $(touch {canary}) `touch {canary}`; touch {canary} && echo {{id}} | cat"
    task = Task({"id": "t1", "question": q})
    out = tmp_path / "answers.jsonl"
    calls = collect([task], f"{sys.executable} {script} --prompt-file {{question_file}} --id {{id}}",
                    conditions=[("with_skill", str(tmp_path)), ("without_skill", None)], out_path=out, timeout_s=300)
    assert not canary.exists()
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert seen[0]["argv"][0] == "--prompt-file" and seen[0]["argv"][2:] == ["--id", "t1"]
    assert all(q not in a for a in seen[0]["argv"])
    assert seen[0]["stdin"] == q and seen[0]["env"] == q and seen[0]["file"] == q
    assert seen[0]["cwd"].endswith("workspace")
    assert seen[0]["skill"] == str(tmp_path) and seen[1]["skill"] is None
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["condition"] for r in rows] == ["with_skill", "without_skill"]
    assert all(c.error is None and "transformer_engine" in c.answer for c in calls)


def test_skill_dir_placeholder_dropped_without_skill():
    tokens = ["agent", "--skills", "{skill_dir}", "-f", "{question_file}"]
    assert build_argv(tokens, question_file="/q", task_id="i", condition="without_skill", skill_dir=None) == \
        ["agent", "-f", "/q"]
    assert build_argv(tokens, question_file="/q", task_id="i", condition="with_skill", skill_dir="/s") == \
        ["agent", "--skills", "/s", "-f", "/q"]
    assert build_argv(["agent"], question_file="/q", task_id="i", condition="c", skill_dir=None) == ["agent"]


def test_timeout_and_retries(tmp_path):
    slow = [sys.executable, "-c", "import time; time.sleep(600)"]  # killed at the timeout whatever the load
    out, attempts, error = call_agent(slow, timeout_s=0.3, retries=1)
    assert out == "" and attempts == 2 and "timed out" in error
    counter = tmp_path / "n"
    flaky = [sys.executable, "-c",
             f"import pathlib,sys; p=pathlib.Path({str(counter)!r}); n=int(p.read_text()) if p.exists() else 0; "
             "p.write_text(str(n+1)); sys.exit(1) if n == 0 else print('ok')"]
    out, attempts, error = call_agent(flaky, timeout_s=300, retries=2)  # generous: not a race
    assert out.strip() == "ok" and attempts == 2 and error is None


def test_bad_templates_are_input_errors():
    with pytest.raises(InputError):
        parse_template("")
    with pytest.raises(InputError):
        parse_template("no-such-agent-binary-xyz")
    with pytest.raises(InputError, match="command line"):
        parse_template(f"{sys.executable} agent.py {{question}}")
    with pytest.raises(InputError):
        parse_template("'unbalanced")


def test_cli_run_collects_then_scores(agent, tmp_path, capsys):
    script, _ = agent
    out = tmp_path / "a.jsonl"
    rc = main(["evals", "run", "--agent-cmd", f"{sys.executable} {script}", "--without-skill",
               "--ids", "dense-te-scoped-bringup,neg-triton-kernel", "--out", str(out), "--evals", str(EVALS)])
    assert rc in (0, 1)
    assert len(out.read_text().splitlines()) == 2
    assert "gate:" in capsys.readouterr().out


@pytest.mark.parametrize("template", [
    "sh -c 'my-agent <\"$SKILL_EVAL_QUESTION_FILE\"'", "bash -lc \"agent -p\"", "env FOO=1 zsh -c 'a'",
    "timeout 30 bash -c 'a'", "/bin/dash -c 'x'", "python3 -c 'print(1)' {question_file}",
])
def test_shell_templates_are_refused_without_allow_shell(template):
    with pytest.raises(InputError) as exc:
        parse_template(template)
    assert "--allow-shell" in exc.value.hint


def test_allow_shell_accepts_with_a_warning():
    warned = []
    tokens = parse_template("sh -c 'cat \"$SKILL_EVAL_QUESTION_FILE\"'", allow_shell=True, warn=warned.append)
    assert tokens[0] == "sh" and warned and "sh" in warned[0]


@pytest.mark.parametrize("template", ["bash ./ask.sh {question_file}", "python3 agent.py -p", "env A=1 true",
                                      "claude -p", "uv run python agent.py --workspace {workspace}"])
def test_direct_programs_are_not_shell_templates(template):
    from skill_tools.evaluation.agent_cmd import refusal
    import shlex
    assert refusal(shlex.split(template)) is None


def test_cli_run_refuses_a_shell_template(tmp_path, capsys):
    rc = main(["evals", "run", "--agent-cmd", "sh -c 'echo hi'", "--without-skill",
               "--ids", "neg-nccl-bandwidth", "--out", str(tmp_path / "a.jsonl"), "--evals", str(EVALS)])
    assert rc == 2 and not (tmp_path / "a.jsonl").exists()
    assert "--allow-shell" in capsys.readouterr().err
