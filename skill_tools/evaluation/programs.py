"""The Python programs an answer writes outside a Python block: the new side of a fenced diff and a
reStructuredText literal block (a runbook's "tear down in this order::"). Domain rules judge what
such a program calls and in which order, as they judge a Python block. Text only: parsed, never run.
"""

from __future__ import annotations

import re
import textwrap
from typing import Iterator

from skill_tools.config.pysource import parse
from skill_tools.evaluation.diffs import diff_sides, looks_like_diff

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)


def diff_programs(text: str) -> Iterator[str]:
    """The Python a diff asks for: a fenced diff's new side read whole, or, where a hunk starts inside
    a statement (``@@ … from_pretrained(``), each added line that is a statement on its own
    (``+model.enable_gradient_checkpointing()``); and the new side of each hunk of a diff written
    outside a fence (a patch file after its commit message), dedented."""
    bodies = [m.group(2) for m in _FENCE.finditer(text)]
    bodies += list(_bare_hunks(_FENCE.sub("", text)))
    for body in bodies:
        if not looks_like_diff(body):
            continue
        new, _, _ = diff_sides(body)
        added = [ln[1:].strip() for ln in body.split("\n") if ln.startswith("+") and not ln.startswith("+++")]
        for program in [new] + added:
            try:
                parse(program)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            yield program
            if program is new:
                break


def _bare_hunks(text: str) -> Iterator[str]:
    """Each ``@@`` hunk of unfenced text, up to the first line that is not a diff line (the prose
    after a patch): "@@ … @@" then lines that start with " ", "+", "-" or are empty."""
    hunk: list[str] | None = None
    for ln in text.split("\n"):
        if ln.startswith("@@"):
            if hunk:
                yield "\n".join(hunk)
            hunk = [ln]
        elif hunk is not None and (not ln or ln[0] in " +-") and not ln.startswith(("+++", "---")):
            hunk.append(ln)
        elif hunk is not None:
            yield "\n".join(hunk)
            hunk = None
    if hunk:
        yield "\n".join(hunk)


#: The line that opens a reStructuredText literal block: a paragraph ending in ``::`` or a
#: ``.. code-block:: python`` directive.
_LITERAL_INTRO = re.compile(r"^\s*(?:\S.*::|\.\. (?:code-block|code|sourcecode)::\s*(?:python|py)?)\s*$")
#: The intro of an example of what not to do: "Don't tear down like this::".
_NOT_THIS = re.compile(r"\b(?:don'?t|do not|never|avoid|wrong|broken|not like|instead of|hangs?)\b", re.I)


def literal_programs(text: str) -> Iterator[str]:
    """The Python in reStructuredText literal blocks the answer recommends (a runbook's "tear down
    in this order::" block: the lines indented at least as deep as its first line), dedented; a
    block introduced as what not to do is left out."""
    lines = text.split("\n")
    for i, intro in enumerate(lines):
        if not _LITERAL_INTRO.match(intro) or _NOT_THIS.search(intro):
            continue
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(":")):
            j += 1  # the blank line, and a directive's options
        if j >= len(lines):
            continue
        indent = len(lines[j]) - len(lines[j].lstrip())
        if indent <= len(intro) - len(intro.lstrip()):
            continue
        body = []
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) >= indent):
            body.append(lines[j])
            j += 1
        program = textwrap.dedent("\n".join(body)).strip("\n")
        try:
            parse(program)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        yield program
