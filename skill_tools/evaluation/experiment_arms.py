"""Experiment arms: a plan that names its runs by letter ("A: cuda_graph_impl=none", "B: scope
[attn], EP overlap on", "D: scope [moe_preprocess]") offers each run as a config of its own. Its
settings are options, never merged into one config, so each arm is validated on the task as the
run it is. A lone "A:" (the answer of a "Q:/A:" pair) is no arm: a plan names two letters or more.
"""

from __future__ import annotations

import re

from skill_tools.evaluation.fragments import WORDS
from skill_tools.evaluation.polarity import ALTERNATIVE, RECOMMENDED

#: A line that opens on a letter label, after indentation and the drawing of a tree or a list:
#: "    |-- A: cuda_graph_impl=none", "  D: scope [moe_preprocess]", "- (B): …".
_ARM = re.compile(r"^[\s|`'\-+*>]*\(?([A-H])\)?\s*[:)]\s+\S", re.M)


def arm_lines(text: str) -> dict[int, str]:
    """1-based line number -> letter of each arm of a plan that names two consecutive letters or more."""
    found: dict[int, str] = {}
    for m in _ARM.finditer(text):
        found[text.count("\n", 0, m.start()) + 1] = m.group(1)
    letters = set(found.values())
    if not any(chr(ord(c) + 1) in letters for c in letters):
        return {}
    return found


def mark_arms(text: str, blocks: list) -> None:
    """Make the settings written on an arm's line options (in place)."""
    arms = arm_lines(text)
    if not arms:
        return
    for b in blocks:
        if b.line in arms and b.role == RECOMMENDED and b.origin in ("inline", "prose", WORDS):
            b.role = ALTERNATIVE
            b.why = f"run {arms[b.line]} of an experiment plan"
