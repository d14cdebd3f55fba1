"""The ``skill-tools`` commands an answer tells the user to run, judged by the tool's own parser.

An answer to "check this config with your tools" that invokes ``skill-tools validate cfg.yaml
--autofix`` tells the user to run a command that stops at its first word: the flag does not exist.
Commands are read where an answer writes code (fenced blocks, inline code, ``$ `` prompt lines,
a command on a line of its own),
split like a shell would (``shlex``, never run), and handed to the parser the scorer is given
(:func:`skill_tools.cli.refusal`, passed in by the command layer): a refused command line fails
the answer, with the parser's message. Usage-style placeholders (``<config.yaml>``, ``CONFIG``,
``[--json]``, ``...``, a template's ``~{size}`` or ``{{ cfg }}``) are read as what they stand for (a
value the user fills in, also where the option takes one of a few choices), and a command named without its arguments
(`` `skill-tools validate` is clean``) is a mention, not a command line.
"""

from __future__ import annotations

import re
import shlex
from typing import Callable, Iterator

from skill_tools.evaluation.answer_context import CheckResult

#: Judges one command line (the words after ``skill-tools``): None if accepted, else why not.
Refusal = Callable[[list[str]], "str | None"]

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
#: The program, as people start it; what follows is its command line.
_PROGRAM = re.compile(r"(?:^|(?<=[\s(;&|]))(?:skill-tools|python3?\s+-m\s+skill_tools|uv\s+run\s+skill-tools)\s+(.*)$")
_PROMPT = re.compile(r"^\s*(?:\(\S+\)\s*)?[$%❯>]\s+")
#: A command as a task runner or CI file lists it ("      - skill-tools bench …" under a Taskfile's
#: ``cmds:``, "script: skill-tools validate …", a pre-commit hook's ``entry:``), also when the whole answer is that file, unfenced.
_LISTED = re.compile(r"^\s*(?:-\s+|(?:run|script|cmd|cmds|command|commands|entry|exec|ExecStart):\s+[|>]?\s*)[\"']?(?=(?:skill-tools|python3?\s+-m\s+skill_tools)\s)")
#: A command on a line of its own outside a fence: indented (Markdown code under a list item), or
#: starting the line and giving options ("skill-tools bench --mode inference …").
_BARE = re.compile(r"^(?:\s{2,}|\t)(?:skill-tools|python3?\s+-m\s+skill_tools)\s+\S|"
                   r"^(?:skill-tools|python3?\s+-m\s+skill_tools)\s+[a-z-]+\s+(?:\S+\s+)*--[a-z]")
#: A command held in a string literal of code (a task runner's ``c.run("skill-tools …")``, a
#: Makefile-style Python helper); an f-string's ``{field}`` stands for a value.
_QUOTED = re.compile(r"(?:^|[\s(\[=,])[fFrRbB]?([\"'])((?:skill-tools|python3?\s+-m\s+skill_tools)\s[^\"'\n]*)\1")
_FIELD = re.compile(r"\{[^{}]*\}")
#: Where a command line ends: a pipe, a redirect, a list operator, a comment.
_END = re.compile(r"\s(?:\||>|2>|&>|&&|\|\|)(?:\s|$)|;(?:\s|$)|\s#")  # "x.yaml; echo …": the shell ends it at ';'
#: A run of spaces before another column ("[ 90%] skill-tools validate x.sh      0 errors": a log's
#: aligned result, not more arguments).
_COLUMN = re.compile(r"\S {3,}\S")
#: ``<config.yaml>``, and a template's interpolation: WDL ``~{size}``, Jinja/Helm/Actions ``{{ x }}``, ``${{ x }}``.
_PLACEHOLDER = re.compile(r"<[^<>\s][^<>]*>|[~$]?\{\{[^{}]*\}\}|~\{[^{}]*\}")
_OPTIONAL = re.compile(r"\[\s*-[^\[\]]*\]")
_SUBCOMMAND = re.compile(r"^(?:[a-z][a-z-]*|-{1,2}[a-z][\w-]*)$")
MAX_COMMANDS = 20
#: Refusals about what a command leaves out: naming ``skill-tools validate`` without its file is a
#: mention of the command; only what an answer writes (a flag, a choice, a value) can be wrong.
_OMITTED = re.compile(r"arguments are required|no subcommand given")


#: A variable assignment of a Makefile or shell script: ``SKILL_TOOLS ?= skill-tools``, ``CFG=conf/a.yaml``.
_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)\s*(?:\?=|:=|::=|=)\s*([\"']?)([^\s\"'#]+(?:\s+-m\s+skill_tools)?)\2\s*(?:#.*)?$")
_REFERENCE = re.compile(r"\$\(([A-Za-z_]\w*)\)|\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")


def _expanded(text: str) -> str:
    """``text`` with the references to its own single-word variables filled in (``$(SKILL_TOOLS)
    validate $(CFG)`` in a Makefile), so a command behind a variable is read as the one it runs;
    a reference to a variable it does not assign stands for a value (``PLACEHOLDER``) when it
    sits in a line that also names the program."""
    values = {m.group(1): m.group(3) for m in map(_ASSIGN.match, text.split("\n")) if m}
    if not values or not any(re.fullmatch(r"(?:\S+/)?skill-tools|python3?\s+-m\s+skill_tools", v) for v in values.values()):
        return text

    def fill(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2) or m.group(3)
        return values.get(name, m.group(0))

    lines = [_REFERENCE.sub(fill, line) for line in text.split("\n")]
    return "\n".join(_REFERENCE.sub("PLACEHOLDER", ln) if _PROGRAM.search(ln) else ln for ln in lines)


def invocations(text: str) -> Iterator[tuple[list[str], int]]:
    """(argv after the program name, line number) of each ``skill-tools`` command the answer writes."""
    lines = _expanded(text).split("\n")
    fence: str | None = None
    i = 0
    while i < len(lines):
        line, n = lines[i], i + 1
        m = _FENCE.match(line)
        if m:
            fence = None if fence and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) else (fence or m.group(1))
            i += 1
            continue
        candidates: list[str] = []
        if fence or _PROMPT.match(line):
            logical = _PROMPT.sub("", line)
            while logical.rstrip().endswith("\\") and i + 1 < len(lines):  # a command continued over lines
                i += 1
                logical = logical.rstrip()[:-1] + " " + _PROMPT.sub("", lines[i]).strip()
            candidates.append(logical)
        elif listed := _LISTED.match(line):
            candidates.append(line[listed.end():].rstrip("\"'"))
        elif _BARE.match(line):  # an indented command under a list item, or a line that is only a command
            logical = line.strip()
            while logical.endswith("\\") and i + 1 < len(lines):  # continued over lines, as in a script
                i += 1
                logical = logical[:-1] + " " + lines[i].strip()
            candidates.append(logical)
        elif quoted := [m.group(2) for m in _QUOTED.finditer(line)]:  # c.run(f"skill-tools apply {CFG} …")
            candidates.extend(_FIELD.sub("PLACEHOLDER", q) for q in quoted)
        else:
            candidates.extend(m.group(1) for m in _INLINE.finditer(line))
        for cand in candidates:
            argv = _argv(cand)
            if argv is not None:
                yield argv, n
        i += 1


#: An unquoted ``$var`` word: the shell splits it into any number of words (``ver="--mcore-version 0.19"``
#: or empty), so it stands for no word in particular; a quoted ``"$cfg"`` is one word and stays.
_SPLIT_VAR = re.compile(r"(?:\s+|^)\$\{?[A-Za-z_]\w*\}?(?=\s|$)")


def _argv(text: str) -> list[str] | None:
    m = _PROGRAM.search(text)
    if not m:
        return None
    rest = _PLACEHOLDER.sub("PLACEHOLDER", m.group(1))
    rest = _OPTIONAL.sub(" ", _SPLIT_VAR.sub("", rest))
    end = _END.search(" " + rest)
    rest = rest[:max(0, end.start() - 1)] if end else rest  # searched with a space in front
    column = _COLUMN.search(rest)
    rest = rest[:column.start() + 1] if column else rest
    try:
        split = shlex.split(rest)
    except ValueError:
        return None
    # "--config …": the ellipsis stands for the option's value; elsewhere it stands for the rest left out
    words = [("PLACEHOLDER" if i and split[i - 1].startswith("-") and "=" not in split[i - 1] else None) if w in ("...", "…")
             else w for i, w in enumerate(split)]
    words = [w for w in words if w is not None]
    if not words or not _SUBCOMMAND.match(words[0]):
        return None  # "skill-tools validate: error: …" is the tool's output, not a command
    return words


def check_tool_commands(text: str, refusal: Refusal) -> CheckResult | None:
    """A fatal check when any ``skill-tools`` command the answer writes is refused by the tool's
    parser; a passing one when all are accepted; None when the answer writes none."""
    seen = 0
    for argv, line in invocations(text):
        seen += 1
        if seen > MAX_COMMANDS:
            break
        why = refusal(argv)
        # "`skill-tools validate` is clean" names a command; a PLACEHOLDER refused as a choice is filled in by the user
        if why and not _OMITTED.search(why) and "'PLACEHOLDER'" not in why:
            shown = "skill-tools " + shlex.join(argv)
            return CheckResult("tool_commands", "skill-tools commands are valid", 0.0,
                               f"line {line}: `{shown[:160]}` is refused by skill-tools' own parser: {why[:200]}",
                               shown[:200], fatal=True)
    if not seen:
        return None
    return CheckResult("tool_commands", "skill-tools commands are valid", 1.0,
                       f"{min(seen, MAX_COMMANDS)} skill-tools command(s) accepted by the tool's own parser")
