"""The ``--agent-cmd`` contract: task text never reaches a shell, an interpreter or argv.

The command template is the caller's own text. It is split once into an argument list
(``shlex``) and started directly (``subprocess`` with ``shell=False``). Task text (the question)
is never put into that list and never into any string that a shell or interpreter parses; the
agent receives it three ways, all of them data:

- on **standard input** (UTF-8, then end of file);
- as a **file**: ``$SKILL_EVAL_QUESTION_FILE`` names it, and the ``{question_file}`` placeholder
  becomes its path;
- in the **environment**: ``$SKILL_EVAL_QUESTION`` (left out when longer than
  :data:`MAX_ENV_QUESTION` characters; the file and stdin always carry it).

Placeholders are replaced inside single arguments and only by values that are not task text:
``{question_file}``, ``{workspace}`` (the agent's copy of the task's files; also its working
folder), ``{id}`` (a task id, a plain name by the task set's schema), ``{condition}`` and
``{skill_dir}`` (with_skill only; for without_skill an argument that is exactly ``{skill_dir}`` is
dropped together with the option just before it). ``{question}`` is refused: it would put the
question into argv.

Defence in depth, not the guarantee: a template whose program (or a program a launcher such as
``env``, ``timeout``, ``uv run``, ``find -exec``, ``flock``, ``script`` starts) hands a script to a
shell or interpreter (``sh -c``, ``bash -lc``, ``python -c``, ``env -S``, ``awk 'BEGIN{system(…)}'``)
is refused unless ``--allow-shell``; a program that would read its *program* from standard input
(``sh`` or ``python`` without a script, ``bash -s``, ``xargs``) is refused always, because standard
input carries the question.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from skill_tools.errors import InputError

PLACEHOLDERS = ("{question_file}", "{workspace}", "{id}", "{condition}", "{skill_dir}")
QUESTION_ENV, QUESTION_FILE_ENV, WORKSPACE_ENV = "SKILL_EVAL_QUESTION", "SKILL_EVAL_QUESTION_FILE", "SKILL_EVAL_WORKSPACE"
MAX_ENV_QUESTION = 100_000  # Linux caps one environment string at 128 KiB

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox",
                    "pwsh", "powershell", "cmd", "cmd.exe", "rbash", "yash", "elvish", "nu", "xonsh"})
INTERPRETERS = frozenset({"python", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "deno", "bun",
                          "php", "lua", "luajit", "osascript", "tclsh", "wish", "Rscript", "julia", "expect",
                          "awk", "gawk", "mawk", "nawk", "busybox", "jq", "sed", "gdb", "vim", "vi", "nvim",
                          "emacs", "ed", "ex"})
#: Programs that run another command given on their command line or standard input.
STDIN_RUNNERS = frozenset({"xargs", "parallel", "at", "batch", "source", ".", "eval"})
_CODE_FLAGS = frozenset({"-c", "-e", "-E", "--command", "-Command", "/c", "/C", "-lc", "-ic", "-ec", "-xc", "-cl",
                         "--eval", "-p", "--print", "-r", "--exec", "-x", "-ex", "--init-command", "-S",
                         "--split-string", "-f", "--file", "-s", "-"})
_PAYLOAD_MARKERS = ("system(", "popen(", "exec(", "spawn(", "`", "$(", "${", "os.system", "subprocess")


_LAUNCHERS = frozenset({"env", "nohup", "nice", "ionice", "timeout", "stdbuf", "setsid", "time", "command", "exec",
                        "sudo", "doas", "chrt", "taskset", "numactl", "unbuffer", "firejail", "npx", "pnpx", "bunx"})
_RUN_LAUNCHERS = frozenset({"uv", "uvx", "pipx", "poetry", "conda", "mamba", "micromamba", "pixi", "pdm", "hatch",
                            "rye", "npm", "pnpm", "yarn"})


def _program(tokens: list[str]) -> tuple[int, str]:
    """Index and name of the program a launcher chain (``env A=1 timeout 30 uv run x``) starts."""
    i = 0
    while i < len(tokens):
        name = Path(tokens[i]).name
        if name in _LAUNCHERS:
            i += 1
            while i < len(tokens) and (tokens[i].startswith("-") or "=" in tokens[i]
                                       or tokens[i].replace(".", "").rstrip("smhd").isdigit()):
                i += 1
            continue
        if name in _RUN_LAUNCHERS and i + 1 < len(tokens) and tokens[i + 1] in ("run", "exec", "x", "dlx"):
            i += 2
            while i < len(tokens) and tokens[i].startswith("-"):
                i += 2 if tokens[i] in ("-n", "--name", "-p", "--prefix", "--with", "--python", "-e") else 1
            continue
        return i, name
    return len(tokens), ""


def _interpreter(name: str) -> bool:
    base = name.rstrip("0123456789.") if name[:1].isalpha() else name
    return bool({name, base} & (SHELLS | INTERPRETERS))


def refusal(tokens: list[str]) -> tuple[str, bool] | None:
    """(why, always) when ``tokens`` would hand a script to a shell or interpreter; ``always``:
    refused even with ``--allow-shell`` (the program would read its script from standard input,
    which carries the question)."""
    i, prog = _program(tokens)
    if prog in STDIN_RUNNERS:
        return f"{prog!r} runs the commands it is given", True
    if prog and _interpreter(prog):
        rest = tokens[i + 1:]
        if any(t in ("-s", "-") for t in rest[:4]):
            return f"{prog!r} would read its script from standard input", True
        if not any(not t.startswith("-") for t in rest):
            return f"{prog!r} without a script file would read its program from standard input", True
    for j, tok in enumerate(tokens):
        name = Path(tok).name
        after = []  # the interpreter's own options: those before its script (after it, they are the script's)
        for t in tokens[j + 1:j + 5]:
            if not t.startswith("-") and t not in ("/c", "/C"):
                break
            after.append(t)
        if _interpreter(name) and any(t in _CODE_FLAGS or (t.startswith("-") and not t.startswith("--")
                                                           and "c" in t[1:] and len(t) <= 5) for t in after):
            return f"the template runs a script through {name!r}", False
        if name == "env" and any(t in ("-S", "--split-string") or t.startswith(("-S", "--split-string="))
                                 for t in tokens[j + 1:]):
            return "'env -S' splits a string into a command line", False
        if name == "find" and any(t.startswith(("-exec", "-ok")) for t in tokens[j + 1:]):
            return "'find -exec' runs a command line", False
        if name in ("script", "flock", "su", "runuser", "watch") and any(
                t in ("-c", "--command") or t.startswith("--command=") or
                (t.startswith("-") and not t.startswith("--") and "c" in t[1:]) for t in tokens[j + 1:]):
            return f"'{name} -c' runs a command string through a shell", False
        if j > 0 and any(m in tok for m in _PAYLOAD_MARKERS):
            return f"argument {tok[:40]!r} carries code for a shell or interpreter", False
    return None


def parse_template(template: str, *, allow_shell: bool = False, warn=None, flag: str = "--agent-cmd") -> list[str]:
    """The template as an argument list, refused when it breaks the contract (see the module doc);
    ``flag`` names the option in errors (``--judge-cmd`` follows the same contract)."""
    try:
        tokens = shlex.split(template)
    except ValueError as exc:
        raise InputError(flag, f"cannot split the command template: {exc}",
                         hint="quote it like a shell command line, e.g. 'my-agent -p' (the question arrives on stdin)") from None
    if not tokens:
        raise InputError(flag, "empty command template", hint="e.g. 'my-agent --prompt-file {question_file}'")
    if any("{question}" in t for t in tokens):
        raise InputError(flag, "{question} would put the task's text into the command line",
                         hint="the question arrives on standard input, in the file {question_file} "
                              f"(${QUESTION_FILE_ENV}) and in ${QUESTION_ENV}; e.g. 'my-agent --prompt-file {{question_file}}'")
    if any(p in tokens[0] for p in PLACEHOLDERS):
        raise InputError(flag, "the program itself may not be a placeholder", hint="name the agent executable first")
    found = refusal(tokens)
    if found:
        why, always = found
        if always or not allow_shell:
            raise InputError(flag, f"refused: {why}",
                             hint="call the agent program directly; the question reaches it on stdin, as "
                                  "{question_file} or in $" + QUESTION_ENV
                                  + ("" if always else " (--allow-shell accepts a wrapper you wrote yourself)"))
        if warn is not None:
            warn(f"warning: {flag} runs through a shell or interpreter (--allow-shell): {why}; task text "
                 "still reaches it only as stdin, a file or an environment variable")
    if shutil.which(tokens[0]) is None and not Path(tokens[0]).is_file():
        raise InputError(flag, f"program {tokens[0]!r} not found", hint="give a path or put it on PATH")
    return tokens


def build_argv(tokens: list[str], *, question_file: str, task_id: str, condition: str, skill_dir: str | None,
               workspace: str = "") -> list[str]:
    """Fill placeholders argument by argument with values that are not task text; never re-split."""
    argv: list[str] = []
    for tok in tokens:
        if tok == "{skill_dir}" and not skill_dir:
            if argv and argv[-1].startswith("-") and len(argv) > 1:
                argv.pop()
            continue
        out = (tok.replace("{question_file}", question_file).replace("{workspace}", workspace)
               .replace("{id}", task_id).replace("{condition}", condition).replace("{skill_dir}", skill_dir or ""))
        argv.append(out)
    return argv


def question_env(question: str, question_file: str, workspace: str) -> dict[str, str]:
    """The environment entries that carry the question (as data) to the agent."""
    env = {QUESTION_FILE_ENV: question_file, WORKSPACE_ENV: workspace}
    clean = question.replace("\x00", "")
    if len(clean) <= MAX_ENV_QUESTION:
        env[QUESTION_ENV] = clean
    return env
