"""Which file or named part of an answer a fenced block edits: a path in the fence's info string or
on the line above it ("**`recipes/a.py`**"), a part the answer names ("**Recipe 2:**", "Config B"),
the ``+++ b/…`` header of one part of a multi-file diff. Blocks of different files are different
configs (:mod:`extract`).
"""

from __future__ import annotations

import re

#: A path as people write it: ``recipes/llama.py``, ``conf/x.yaml``, ``train.sh``.
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:py|ya?ml|sh|json|toml|cfg|ini|conf|slurm|sbatch|env))(?![\w/-])")
#: "**Recipe 1:**", "Second recipe", "Config B", "Script 2": one of several configs the answer edits.
NAMED_PART = re.compile(r"\b((?:recipe|config|configuration|script|launcher|file|job)\s*#?\s*(?:\d|[A-D]\b|one\b|two\b|three\b)|"
                         r"(?:first|second|third|other)\s+(?:recipe|config|configuration|script|launcher|file|job))", re.I)
_FENCE_PATH = re.compile(r"^\s*(?:`{3,}|~{3,})\s*[\w+.-]*\s*(?::|\s+(?:title|file(?:name)?)=[\"']?)\s*([^\s\"'`]+)")
_DIFF_PATH = re.compile(r"^(?:diff --git a/\S+ b/(\S+)|\+\+\+ b?/?(\S+)|--- a/(\S+))", re.M)


def file_named(fence_line: str, before: list[str]) -> str | None:
    """The file a fenced block edits: ```` ```python:recipes/a.py ```` / ``title="a.py"``, or a short
    line just above it that names a path ("**`recipes/a.py`**", "Updated `a.py`:")."""
    m = _FENCE_PATH.match(fence_line)
    if m and _PATH.search(m.group(1)):
        return m.group(1)
    lead = next((ln.strip() for ln in reversed(before) if ln.strip()), "")
    if lead and len(lead) <= 120:
        m = _PATH.search(lead) or NAMED_PART.search(lead)
        if m:
            return m.group(1).lower()
    return None


def diff_file(part: str) -> str | None:
    """The file one part of a multi-file diff changes (its ``+++ b/…`` or ``diff --git`` header)."""
    m = _DIFF_PATH.search(part)
    return next((g for g in m.groups() if g), None) if m else None


def is_named_part(name: str) -> bool:
    """Whether a block's file is a part the answer names ("recipe 2", "config b") rather than a path:
    one of several configs, never two files of one run (a YAML and its launch script)."""
    return NAMED_PART.fullmatch(name) is not None
