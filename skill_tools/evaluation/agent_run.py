"""Collect answers by calling an agent CLI once per task and condition.

The command template is split into an argument list once (``shlex``); placeholders are then
replaced inside single arguments, so a question is always exactly one argument and no shell
ever sees it. Each call has a timeout and a bounded number of retries.

A template that hands its text to a shell or interpreter (``sh -c '... {question}'``,
``bash -lc``, ``python -c``, ``env FOO=1 zsh -c``) would let a question's quotes, ``$(...)`` or
backticks run as commands: it is refused unless the caller passes ``allow_shell`` (the CLI's
``--allow-shell``), and then a warning names it.

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
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox",
                    "pwsh", "powershell", "cmd", "cmd.exe"})
INTERPRETERS = frozenset({"python", "python3", "perl", "ruby", "node", "php", "lua", "osascript"})
#: Launchers that run the program named after their own options (skipped to find the real program).
_WRAPPERS = frozenset({"env", "nohup", "nice", "timeout", "stdbuf", "setsid", "time", "command", "exec", "sudo"})
_CODE_FLAGS = ("-c", "-e", "--command", "-Command", "/c", "-lc", "-ic", "-ec", "-xc")


@dataclass
class AgentCall:
    id: str
    condition: str
    answer: str
    attempts: int
    seconds: float
    error: str | None = None


def shell_program(tokens: list[str]) -> str | None:
    """The shell or interpreter a template hands code to (``bash -c ...``), or None."""
    i = 0
    while i < len(tokens):
        name = Path(tokens[i]).name
        if name in _WRAPPERS:
            i += 1
            while i < len(tokens) and (tokens[i].startswith("-") or "=" in tokens[i] or tokens[i].replace(".", "").isdigit()):
                i += 1
            continue
        base = name.rstrip("0123456789.") if name.startswith("python") else name
        if name in ("eval", "source", "."):
            return name
        if name in SHELLS or base in SHELLS:
            rest = tokens[i + 1:]
            if any(t in _CODE_FLAGS or (t.startswith("-") and not t.startswith("--") and "c" in t[1:]) for t in rest):
                return name
            if any("{" in t for t in rest[:1]) or not rest:
                return name  # `sh {question}` would run the question as a script path or stdin
            return None
        if base in INTERPRETERS or name in INTERPRETERS:
            for t in tokens[i + 1:]:  # interpreter options come before the script; after it, they are the script's
                if not t.startswith("-"):
                    break
                if t in ("-c", "-e", "-E", "--eval", "-p", "--print", "-r"):
                    return name
        return None
    return None


def parse_template(template: str, *, allow_shell: bool = False, warn=None) -> list[str]:
    try:
        tokens = shlex.split(template)
    except ValueError as exc:
        raise InputError("--agent-cmd", f"cannot split the command template: {exc}",
                         hint="quote it like a shell command line, e.g. 'my-agent -p {question}'") from None
    if not tokens:
        raise InputError("--agent-cmd", "empty command template", hint="e.g. 'my-agent -p {question}'")
    if any(p in tokens[0] for p in PLACEHOLDERS):
        raise InputError("--agent-cmd", "the program itself may not be a placeholder", hint="name the agent executable first")
    shell = shell_program(tokens)
    if shell and not allow_shell:
        raise InputError("--agent-cmd", f"the template runs its text through {shell!r}: a question containing "
                         "quotes, $(...) or backticks would run as commands",
                         hint="call the agent program directly, e.g. 'my-agent -p {question}' (each placeholder "
                              "becomes one argument), or pass --allow-shell if you accept that risk")
    if shell and warn is not None:
        warn(f"warning: --agent-cmd runs through {shell!r} (--allow-shell): task text reaches a shell or "
             "interpreter; only run task sets you trust")
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
            timeout_s: float = 600, retries: int = 1, agent: str = "", allow_shell: bool = False,
            warn=None) -> list[AgentCall]:
    """Ask the agent every task under every condition; write the answers file as it goes."""
    tokens = parse_template(template, allow_shell=allow_shell, warn=warn)
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
