"""Collect answers by calling an agent CLI once per task and condition.

The command template is split into an argument list once (``shlex``); placeholders are then
replaced inside single arguments, so a question is always exactly one argument and no shell
ever sees it. Each call has a timeout and a bounded number of retries.

Placeholders: ``{question}`` (appended as the last argument when absent), ``{id}``,
``{condition}``, ``{skill_dir}`` (with_skill only; for without_skill an argument that is
exactly ``{skill_dir}`` is dropped together with the option just before it).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from skill_tools.errors import InputError
from skill_tools.evaluation.extract import MAX_ANSWER_CHARS
from skill_tools.evaluation.tasks import Task

PLACEHOLDERS = ("{question}", "{id}", "{condition}", "{skill_dir}")


@dataclass
class AgentCall:
    id: str
    condition: str
    answer: str
    attempts: int
    seconds: float
    error: str | None = None


def parse_template(template: str) -> list[str]:
    try:
        tokens = shlex.split(template)
    except ValueError as exc:
        raise InputError("--agent-cmd", f"cannot split the command template: {exc}",
                         hint="quote it like a shell command line, e.g. 'my-agent -p {question}'") from None
    if not tokens:
        raise InputError("--agent-cmd", "empty command template", hint="e.g. 'my-agent -p {question}'")
    if any(p in tokens[0] for p in PLACEHOLDERS):
        raise InputError("--agent-cmd", "the program itself may not be a placeholder", hint="name the agent executable first")
    if shutil.which(tokens[0]) is None and not Path(tokens[0]).is_file():
        raise InputError("--agent-cmd", f"program {tokens[0]!r} not found", hint="give a path or put it on PATH")
    return tokens


def build_argv(tokens: list[str], *, question: str, task_id: str, condition: str, skill_dir: str | None) -> list[str]:
    """Fill placeholders argument by argument; never re-split, never pass through a shell."""
    argv: list[str] = []
    has_question = any("{question}" in t for t in tokens)
    for tok in tokens:
        if tok == "{skill_dir}" and not skill_dir:
            if argv and argv[-1].startswith("-") and len(argv) > 1:
                argv.pop()
            continue
        out = tok
        # {question} last: a question containing "{id}" must stay verbatim.
        out = out.replace("{id}", task_id).replace("{condition}", condition).replace("{skill_dir}", skill_dir or "")
        out = out.replace("{question}", question)
        argv.append(out)
    if not has_question:
        argv.append(question)
    return argv


def call_agent(argv: list[str], *, timeout_s: float, retries: int, env: dict[str, str] | None = None,
               cwd: str | None = None) -> tuple[str, int, str | None]:
    """(stdout, attempts, error). Retries on a non-zero exit, a timeout or empty output."""
    error: str | None = None
    for attempt in range(1, retries + 2):
        try:
            proc = subprocess.run(argv, shell=False, stdin=subprocess.DEVNULL, capture_output=True,
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


def collect(tasks: Iterable[Task], template: str, *, conditions: list[tuple[str, str | None]], out_path: Path,
            timeout_s: float = 600, retries: int = 1, agent: str = "") -> list[AgentCall]:
    """Ask the agent every task under every condition; write the answers file as it goes."""
    tokens = parse_template(template)
    name = agent or Path(tokens[0]).name
    out_path.parent.mkdir(parents=True, exist_ok=True)
    calls: list[AgentCall] = []
    with out_path.open("w", encoding="utf-8") as fh:
        for task in tasks:
            for condition, skill_dir in conditions:
                argv = build_argv(tokens, question=task.data["question"], task_id=task.id,
                                  condition=condition, skill_dir=skill_dir)
                env = dict(os.environ)
                env.pop("SKILL_DIR", None)
                if skill_dir:
                    env["SKILL_DIR"] = skill_dir
                start = time.monotonic()
                answer, attempts, error = call_agent(argv, timeout_s=timeout_s, retries=retries, env=env)
                call = AgentCall(task.id, condition, answer, attempts, round(time.monotonic() - start, 2), error)
                calls.append(call)
                fh.write(json.dumps({"id": task.id, "condition": condition, "agent": name, "answer": answer,
                                     "attempts": attempts, "seconds": call.seconds, "error": error}) + "\n")
                fh.flush()
    return calls
