"""The text of an answer written as a recipe file (a justfile, a Makefile, a shell script) with its
variables filled in: ``{{st}} recommend {{cfg}}`` under ``st := "skill-tools"`` is the command
``skill-tools recommend …`` the user runs. Concept checks look for what the user would type; the
config readers keep reading the text as written (the variable's own line is read there).
Text only: nothing is run.
"""

from __future__ import annotations

import re

#: ``name := "value"`` (just), ``NAME := value`` / ``NAME ?= value`` / ``NAME = value`` (Make),
#: ``NAME=value`` / ``NAME="value"`` (shell): one assignment per line, the value on that line.
_ASSIGN = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)[ \t]*(?::=|\?=|=)[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|[^#\n]*?)[ \t]*(?:#.*)?$",
                     re.M)
_USE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}|\$\(([A-Za-z_]\w*)\)|\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")
_MAX_VARS = 200


def expanded(text: str) -> str:
    """``text`` with the variables it assigns substituted where it uses them (one pass, so a value
    that names itself cannot loop); ``text`` itself when it assigns none or uses none."""
    values: dict[str, str] = {}
    for m in _ASSIGN.finditer(text):
        if len(values) >= _MAX_VARS:
            break
        values.setdefault(m.group(1), m.group(2).strip().strip("\"'"))
    if not values:
        return text

    def sub(m: re.Match) -> str:
        name = next(g for g in m.groups() if g)
        return values.get(name, m.group(0))

    return _USE.sub(sub, text)
