"""Megatron-LM flags written in a sentence, cut to what the sentence gives them.

Prose names options without values ("fails with … for --cuda-graph-impl=...") and runs on after a
value ("with --cuda-graph-impl transformer_engine MCore asserts …"). Megatron-LM's own parser table
says which options take a value and how many, so the words after them are read as its parser would
take them, and the rest of the sentence is left out.
"""

from __future__ import annotations

import re
import shlex

from skill_tools.config.cli_tables import megatron_lm
from skill_tools.config.era import DEFAULT_CURRENT


def prose_flags(text: str) -> str:
    """Prose names an option without its value ("fails with … for --cuda-graph-impl=..."): the
    mention sets nothing; an option that takes one value takes one word, the sentence goes on after
    it. Megatron-LM's own parser table says which options take a value, and how many."""
    try:
        tokens = shlex.split(text)
    except ValueError:
        return text
    table, out, room = megatron_lm(DEFAULT_CURRENT), [], None
    for i, tok in enumerate(tokens):
        name, eq, value = tok.partition("=")
        if tok.startswith("--"):
            opt = table.option(name)
            after = tokens[i + 1] if i + 1 < len(tokens) else "--"
            # "--cuda-graph-impl ≠ none", "--flag …": a symbol, not a value
            bare = (not eq and (after.startswith("--") or not re.search(r"\w", after))) or (eq and not re.search(r"\w", value))
            if opt is not None and opt.takes_value and bare:
                continue
            # a one-value option takes one word of the sentence: "--cuda-graph-impl transformer_engine MCore asserts"
            room = (0 if eq else 1) if opt is not None and opt.takes_value and opt.nargs is None else None
        elif room is not None:
            if room == 0:
                continue
            room -= 1
        out.append(tok)
    return shlex.join(out) if len(out) != len(tokens) else text
