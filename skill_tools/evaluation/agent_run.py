"""Collect answers by calling an agent CLI once per task and condition.

The command is an argument list started directly; task text never enters it (the contract and
its defence-in-depth checks are in :mod:`agent_cmd`): the question travels on standard input,
as a file and in an environment variable. Each call runs in a private folder: the question file
sits beside ``workspace/``, the agent's working folder, which holds a fresh copy of the task's
workspace files when the task ships them (:mod:`workspace`). The files the agent changed there are
recorded with its answer, for the verifier to read. Each call has a timeout and a bounded number
of retries; the private folder is removed afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from skill_tools.errors import InputError
from skill_tools.evaluation import workspace as ws
from skill_tools.evaluation.agent_cmd import build_argv, parse_template, question_env  # noqa: F401  (re-exported)
from skill_tools.evaluation.extract import MAX_ANSWER_CHARS
from skill_tools.evaluation.tasks import Task


@dataclass
class AgentCall:
    id: str
    condition: str
    answer: str
    attempts: int
    seconds: float
    error: str | None = None
    changes: ws.Changes = field(default_factory=ws.Changes)


def call_agent(argv: list[str], *, timeout_s: float, retries: int, env: dict[str, str] | None = None,
               cwd: str | None = None, stdin: bytes = b"") -> tuple[str, int, str | None]:
    """(stdout, attempts, error). Retries on a non-zero exit, a timeout or empty output."""
    error: str | None = None
    for attempt in range(1, retries + 2):
        try:
            proc = subprocess.run(argv, shell=False, input=stdin, capture_output=True,
                                  timeout=timeout_s, env=env, cwd=cwd)
        except subprocess.TimeoutExpired:
            error = f"timed out after {timeout_s:g}s"
        except OSError as exc:
            return "", attempt, f"cannot start agent: {exc}"
        else:
            out = proc.stdout.decode("utf-8", errors="replace")[:MAX_ANSWER_CHARS + 1]
            if proc.returncode == 0 and out.strip():
                return out, attempt, None
            err = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
            error = f"exit {proc.returncode}" + (f": {err[-1][:200]}" if err else "") if proc.returncode else "empty output"
        if attempt <= retries:
            time.sleep(min(2 ** (attempt - 1), 8) * 0.5)
    return "", retries + 1, error


def ask(task: Task, tokens: list[str], *, condition: str, skill_dir: str | None, timeout_s: float,
        retries: int) -> AgentCall:
    """One call: a private folder with the question file and a copy of the task's workspace."""
    question = str(task.data["question"])
    source = ws.resolve(task.data, task.root)
    with tempfile.TemporaryDirectory(prefix="skill-eval-") as tmp:
        qfile = Path(tmp) / "question.md"
        qfile.write_text(question, encoding="utf-8")
        folder = Path(tmp) / "workspace"
        before = ws.copy(source, folder) if source else {}
        folder.mkdir(exist_ok=True)
        argv = build_argv(tokens, question_file=str(qfile), task_id=task.id, condition=condition,
                          skill_dir=skill_dir, workspace=str(folder))
        env = {k: v for k, v in os.environ.items() if k != "SKILL_DIR"}
        env.update(question_env(question, str(qfile), str(folder)))
        if skill_dir:
            env["SKILL_DIR"] = skill_dir
        start = time.monotonic()
        answer, attempts, error = call_agent(argv, timeout_s=timeout_s, retries=retries, env=env, cwd=str(folder),
                                             stdin=question.encode("utf-8", errors="replace"))
        seconds = round(time.monotonic() - start, 2)
        changed = ws.changes(folder, before)
    return AgentCall(task.id, condition, answer, attempts, seconds, error, changed)


def collect(tasks: Iterable[Task], template: str, *, conditions: list[tuple[str, str | None]], out_path: Path,
            timeout_s: float = 600, retries: int = 1, agent: str = "", allow_shell: bool = False,
            warn=None) -> list[AgentCall]:
    """Ask the agent every task under every condition; write the answers file as it goes."""
    from skill_tools.output_file import resolve_target

    tokens = parse_template(template, allow_shell=allow_shell, warn=warn)
    name = agent or Path(tokens[0]).name
    target = resolve_target(str(out_path), "--out")
    if target is None:
        raise InputError("--out", "the answers file cannot be standard output", hint="name a file")
    calls: list[AgentCall] = []
    with target.open("w", encoding="utf-8") as fh:
        for task in tasks:
            for condition, skill_dir in conditions:
                call = ask(task, tokens, condition=condition, skill_dir=skill_dir, timeout_s=timeout_s, retries=retries)
                calls.append(call)
                row = {"id": task.id, "condition": condition, "agent": name, "answer": call.answer,
                       "attempts": call.attempts, "seconds": call.seconds, "error": call.error}
                if call.changes.files or call.changes.deleted or call.changes.notes:
                    row["workspace_changes"] = call.changes.to_dict()
                fh.write(json.dumps(row) + "\n")
                fh.flush()
    return calls
