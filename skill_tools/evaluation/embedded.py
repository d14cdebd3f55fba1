"""Config embedded in other text: the hunk of a coding agent's edit result (Claude Code's
``⎿  Updated f.yaml with 2 additions``), and the shell script of a CI step (``run: |`` in a GitHub
Actions / GitLab YAML) whose launch command carries the overrides. Only located here; the
readers parse what is found, nothing is run.
"""

from __future__ import annotations

import re
import textwrap
from typing import Iterator

#: A coding agent's edit result line (Claude Code): the indented hunk below it is the change it made.
EDIT_RESULT = re.compile(r"^\s*⎿\s+(?:Updated|Added|Wrote|Edited|Modified)\b")


_LINE_NO = re.compile(r"^\s*\d+ ")


def hunk_end(lines: list[str], i: int) -> int:
    """The end of the indented hunk below the edit result line ``lines[i]``."""
    j = i + 1
    while j < len(lines) and lines[j].strip() and lines[j][:1].isspace():
        j += 1
    return j


def transcript_hunk(hunk: list[str]) -> str:
    """The hunk as a unified diff: its ``+``/``-`` signs stand in one column, context lines have a
    blank there."""
    if all(_LINE_NO.match(ln) for ln in hunk):  # "  41 -    cfg.x = 1": the file's line numbers first
        hunk = [_LINE_NO.sub("", ln, count=1) for ln in hunk]
        return "\n".join(ln if ln[:1] in "+-" else " " + ln[1:] for ln in hunk)
    signs = [ln for ln in hunk if ln.lstrip()[:1] in "+-" and ln.strip() not in ("+", "-")]
    col = min((len(ln) - len(ln.lstrip()) for ln in signs), default=min(len(ln) - len(ln.lstrip()) for ln in hunk))
    out = []
    for ln in hunk:
        head, rest = ln[:col], ln[col:]
        if not head.strip() and rest[:1] in "+-":
            out.append(rest)
        else:
            out.append(" " + ln[col + 1:] if not ln[:col + 1].strip() else " " + ln.lstrip())
    return "\n".join(out)


#: ``run: |`` / ``script: >-`` / ``command: |``: a YAML block scalar holding a shell script.
_RUN_KEY = re.compile(r"^(\s*)(?:-\s+)?(?:run|script|command|cmd|entrypoint)\s*:\s*[|>][-+]?\s*$")


def run_scripts(body: str) -> Iterator[tuple[str, int]]:
    """The shell scripts of a YAML body's block scalars under run/script/command keys, with the
    0-based line of each script's first line."""
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        m = _RUN_KEY.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        indent = len(m.group(1))
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            j += 1
        script = textwrap.dedent("\n".join(lines[i + 1:j]))
        if script.strip():
            yield script, i + 1
        i = j


_NUMBERED = re.compile(r"^\d+[:-]")


def numbered_listing(body: str) -> str:
    """A listing whose every line starts with its line number (``grep -n`` output: ``41:    x = 1``)
    without the numbers, dedented; any other body unchanged."""
    lines = [ln for ln in body.split("\n") if ln.strip()]
    if len(lines) < 2 or not all(_NUMBERED.match(ln) for ln in lines):
        return body
    return textwrap.dedent("\n".join(_NUMBERED.sub("", ln, count=1) for ln in body.split("\n")))
