"""A terminal session pasted into an answer: commands after a prompt, each followed by what it printed.

``$ cat run/cfg.yaml`` then the file, ``$ skill-tools validate …`` then its findings: only the
commands are what the answer asks the user to run. What a command printed is the machine's
output, never advice: a validator's ``fix: model.cuda_graph_modules=['moe_router']`` line or a
log line is not a setting. A ``cat`` of a file shows what the file holds at that point: before
the session changes any file (a heredoc, ``sed -i``, ``skill-tools apply``, ``tee``, a redirect) that is
the user's starting config, described; after a change it is the result, and keeps the block's role.
A ``git diff`` prints the change itself: its new side is what the answer asks for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PROMPT = re.compile(r"^\s*(?:\([\w.-]+\)\s*)?(?:[\w.@:~/-]*)?[$%]\s+(?=\S)")
_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")
_SHOWS_FILE = re.compile(r"^\s*(?:cat|bat|less|more|head|tail)\s+(?!.*(?:<<|>))\S")
_SHOWS_DIFF = re.compile(r"^\s*(?:git\s+(?:--no-pager\s+)?(?:diff|show)\b|diff\s+-\w*u)")
_WRITES = re.compile(r"<<|(?:^|\s)(?:sed\s+-i|tee|vim?|nano|code|patch|git\s+apply|skill-tools\s+apply)\b|[^<>2&]>\s*\S")


@dataclass
class Step:
    """One command of a session: its text (with a heredoc it feeds), where it starts, what it printed."""

    command: str
    line: int  # offset of the command's first line in the block
    output: str
    output_line: int
    before_change: bool  # printed before the session changed any file

    @property
    def shows_file(self) -> bool:
        return bool(_SHOWS_FILE.match(self.command))

    @property
    def shows_diff(self) -> bool:
        """``git diff`` / ``git show`` / ``diff -u``: what it prints is the change itself, the answer's."""
        return bool(_SHOWS_DIFF.match(self.command))


def is_transcript(body: str) -> bool:
    """A block with prompt lines and lines that are neither prompts, their continuations nor comments."""
    lines = body.split("\n")
    prompts = output = 0
    continued = False
    for ln in lines:
        if _PROMPT.match(ln):
            prompts += 1
        elif ln.strip() and not continued and not ln.lstrip().startswith("#"):
            output += 1
        continued = ln.rstrip().endswith("\\")
    return prompts >= 1 and output >= 1


def steps(body: str) -> list[Step]:
    lines = body.split("\n")
    out: list[Step] = []
    changed = False
    i = 0
    while i < len(lines) and not _PROMPT.match(lines[i]):
        i += 1  # text before the first prompt (a banner) is output of nothing
    while i < len(lines):
        start = i
        command = [_PROMPT.sub("", lines[i], count=1)]
        while command[-1].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            command.append(lines[i])
        m = _HEREDOC.search(" ".join(command))
        if m:  # the document a heredoc feeds is part of the command
            while i + 1 < len(lines):
                i += 1
                command.append(lines[i])
                if lines[i].strip() == m.group(1):
                    break
        i += 1
        out_start = i
        while i < len(lines) and not _PROMPT.match(lines[i]):
            i += 1
        text = "\n".join(command)
        out.append(Step(text, start, "\n".join(lines[out_start:i]), out_start, not changed))
        changed = changed or bool(_WRITES.search(text))
    return out
