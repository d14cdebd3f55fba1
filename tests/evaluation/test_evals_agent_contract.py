"""The --agent-cmd contract: task text never reaches argv, a shell or an interpreter; wrappers that
carry a script are refused (defence in depth); the agent works in a copy of the task's workspace and
the files it changes there are recorded; evals writers refuse folders and FIFOs."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.errors import InputError
from skill_tools.evaluation.agent_cmd import parse_template, refusal
from skill_tools.evaluation.agent_run import collect
from skill_tools.evaluation.tasks import Task, load_tasks

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"

#: Payload carriers reported in issue 30: each one, with a question containing $(touch X), created X
#: when the question was interpolated into the template.
CARRIERS = [
    "find . -maxdepth 0 -exec sh -c 'echo {question_file}' \\;",
    "awk 'BEGIN{system(\"cat \" ENVIRON[\"SKILL_EVAL_QUESTION_FILE\"])}'",
    "script -qc 'cat x' /dev/null",
    "flock lockfile -c 'cat x'",
    "uv run sh -c 'cat x'",
    "env -S 'sh -c cat'",
    "env --split-string='sh -c cat'",
    "timeout 5 nice -n 1 bash -c 'cat'",
    "perl -e 'print 1'",
    "node -e 'x'",
]
#: Programs that would read their program from stdin, which carries the question: refused always.
STDIN_PROGRAMS = ["sh", "bash -s", "python3", "python3 -", "xargs echo", "env A=1 bash", "eval echo"]


@pytest.mark.parametrize("template", CARRIERS)
def test_payload_carriers_are_refused(template):
    assert refusal(shlex.split(template)) is not None
    with pytest.raises(InputError) as exc:
        parse_template(template)
    assert "--allow-shell" in exc.value.hint


@pytest.mark.parametrize("template", STDIN_PROGRAMS)
def test_programs_reading_their_script_from_stdin_are_refused_even_with_allow_shell(template):
    with pytest.raises(InputError):
        parse_template(template, allow_shell=True)


def test_question_placeholder_is_refused():
    with pytest.raises(InputError, match="command line"):
        parse_template(f"{sys.executable} agent.py --prompt {{question}}")


AGENT = """import os, pathlib, sys
question = sys.stdin.read()
ws = pathlib.Path(os.environ["SKILL_EVAL_WORKSPACE"])
assert pathlib.Path.cwd() == ws
recipe = ws / "recipe.yaml"
text = recipe.read_text()
recipe.write_text(text.replace("cuda_graph_impl: none", "cuda_graph_impl: transformer_engine"))
(ws / "notes.md").write_text("changed the recipe")
(ws / "old.txt").unlink()
print("I changed recipe.yaml: " + str(len(question)))
"""


def test_agent_gets_a_workspace_copy_and_its_changes_are_recorded(tmp_path):
    root = tmp_path / "set"
    src = root / "workspaces" / "t1"
    src.mkdir(parents=True)
    (src / "recipe.yaml").write_text("model:\n  cuda_graph_impl: none\n")
    (src / "old.txt").write_text("x")
    (root / "evals.json").write_text(json.dumps([{"id": "t1", "question": "q $(touch CANARY)",
                                                   "expected_behavior": ["b"], "workspace": "workspaces/t1"}]))
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    taskset = load_tasks(root / "evals.json")
    out = tmp_path / "a.jsonl"
    calls = collect(list(taskset.tasks.values()), f"{sys.executable} {script}",
                    conditions=[("without_skill", None)], out_path=out, timeout_s=300)
    assert calls[0].error is None, calls[0].error
    row = json.loads(out.read_text())
    changes = row["workspace_changes"]
    assert "transformer_engine" in changes["files"]["recipe.yaml"] and "notes.md" in changes["files"]
    assert changes["deleted"] == ["old.txt"]
    assert (src / "recipe.yaml").read_text() == "model:\n  cuda_graph_impl: none\n"  # the task's files untouched
    assert (src / "old.txt").exists() and not list(tmp_path.rglob("CANARY"))


def test_workspace_outside_the_task_set_is_refused(tmp_path):
    (tmp_path / "evals.json").write_text(json.dumps([{"id": "t1", "question": "q", "expected_behavior": ["b"],
                                                       "workspace": "ws/../../elsewhere"}]))
    task = load_tasks(tmp_path / "evals.json").tasks["t1"]
    with pytest.raises(InputError):
        collect([task], f"{sys.executable} -u {tmp_path / 'agent.py'}", conditions=[("without_skill", None)],
                out_path=tmp_path / "a.jsonl", timeout_s=30)


@pytest.fixture
def answers(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps({"id": "neg-nccl-bandwidth", "answer": "Tune NCCL_ALGO.", "condition": "with_skill"}) + "\n")
    return p


@pytest.mark.parametrize("flag", ["--json-out", "--markdown"])
def test_score_writers_refuse_a_folder_and_a_fifo(tmp_path, answers, capsys, flag):
    folder = tmp_path / "dir"
    folder.mkdir()
    assert main(["evals", "score", "--answers", str(answers), "--evals", str(EVALS), flag, str(folder)]) == 2
    err = capsys.readouterr().err
    assert "folder" in err and len(err.strip().splitlines()) <= 2
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["evals", "score", "--answers", str(answers), "--evals", str(EVALS), flag, str(fifo)]) == 2
    assert "FIFO" in capsys.readouterr().err


def test_export_writer_refuses_a_folder_and_a_fifo(tmp_path, capsys):
    assert main(["evals", "export", "--trigger-set", "--evals", str(EVALS), "--out", str(tmp_path)]) == 2
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["evals", "export", "--nvskills", "--evals", str(EVALS), "--out", str(fifo)]) == 2
    assert "FIFO" in capsys.readouterr().err


def test_dry_run_reports_an_unsafe_answer_as_unsafe(tmp_path, capsys):
    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps({"id": "full-iteration-current", "condition": "with_skill",
                             "answer": "```python\nimport os\nos.system('touch X')\ncfg.model.cuda_graph_impl='full_iteration'\n```"}) + "\n")
    rc = main(["evals", "score", "--answers", str(p), "--evals", str(EVALS), "--execute", "--dry-run",
               "--engine", "proxy", "--json", "--cache-dir", str(tmp_path / "cache")])
    assert rc == 0
    plan = json.loads(capsys.readouterr().out)["answers"][0]
    assert plan.get("unsafe") is True and "unsafe" in plan["skipped"] and "executes check" not in plan["skipped"]
