"""Recognise texts that are not logs, so they get a one-line refusal instead of a reading.

Only texts the parser found nothing in are looked at, and files named as documents (.yaml, .json,
.ipynb, .py) whatever they contain. A config (YAML), a notebook or other JSON,
and Python source are refused with what they are; any other text is read as plain text (there is
nothing in it to diagnose, and saying so is more useful than refusing a log we cannot place).
"""

from __future__ import annotations

import ast
import json
import re

import yaml

from skill_tools.config import pysource

HEAD_CHARS = 1 << 18  # how much of the text the checks look at
#: file names checked even when lines in them matched a signature (a catalog quoting error messages)
DOCUMENT_SUFFIXES = (".yaml", ".yml", ".json", ".ipynb", ".py")
_YAML_LINE = re.compile(r"\s*(?:-\s+)?[A-Za-z_][\w.-]*:(?:\s|$)")


def identify(head: str, name: str) -> str | None:
    """A one-line reason why ``head`` (the start of a file called ``name``) is not a log, or None."""
    text = head.strip()
    if not text:
        return "only blank lines"
    if text[0] in "{[":
        if '"nbformat"' in text or '"cells"' in text:
            return "a Jupyter notebook (JSON), not a training log: paste the output of the failing cell instead"
        try:
            json.loads(text)
            return "a JSON document, not a training log"
        except (ValueError, RecursionError):  # not JSON, or nested deeper than Python's stack: read on
            pass
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    yaml_like = sum(1 for ln in lines if _YAML_LINE.match(ln))
    if name.endswith((".yaml", ".yml")) or (lines and yaml_like >= 0.6 * len(lines)):
        try:
            doc = yaml.safe_load(text)
        except (yaml.YAMLError, RecursionError):
            doc = None
        if isinstance(doc, (dict, list)):
            return "a YAML document (a config?), not a training log: `skill-tools validate` reads configs"
    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # MemoryError: CPython's "parser
        return None  # stack overflowed" on deeply nested brackets, raised before any allocation is large
    if any(isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)) for n in tree.body):
        return "Python source, not a training log: paste what it printed instead"
    return None
