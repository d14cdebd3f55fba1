"""Hard-wrapped prose: whether a line goes on with the sentence of the line before, or breaks off
mid-sentence and the next line finishes it. A setting's polarity is judged on its whole sentence
(:class:`polarity.LinePolarity` takes the lead and the trail these return), so a wrap between
"removed `x` and" and "`y`; now …" does not cut the verb off its object.
"""

from __future__ import annotations

import re

from skill_tools.evaluation.polarity import _SENTENCE, WINDOW
from skill_tools.evaluation.unfenced import code_like

_WRAP_ENDS = re.compile(r"[.!?:;]\W*$|^\s*$|^\s{0,3}(?:#|\||>|```)")
_ITEM_START = re.compile(r"^\s*(?:[-*+•]\s|\d{1,3}[.)]\s|#|\||>|```|[A-Za-z][\w ]{0,30}:\s)")
_PROSE_ITEM = re.compile(r"^\s*[-*+]\s+[A-Z][a-z]+(?:\s+[a-z][\w'-]*){2}")


def wrapped_lead(previous: str, line: str) -> str:
    """``previous`` when ``line`` continues its sentence (a hard-wrapped paragraph or list item:
    ``- removed `x` and`` / ``  `y`; now …``), else "". A line that starts an item, a heading, a
    table row or a quote (not of the same quote), or follows a finished sentence, starts afresh; "+ `x`)" goes on an open "(" ."""
    if re.match(r"\s*>", previous or "") and re.match(r"\s*>", line):
        previous, line = re.sub(r"^\s*>\s?", "", previous), re.sub(r"^\s*>\s?", "", line)
    if not previous or _WRAP_ENDS.search(previous) or (_ITEM_START.match(line) and previous.count("(") <= previous.count(")")):
        return ""
    return previous[-WINDOW:]


def wrapped_trail(line: str, following: str) -> str:
    """The words of ``following`` up to its first sentence end, when ``line`` breaks off mid-sentence
    and ``following`` goes on with it ("… `cuda_graph_impl="full_iteration"` value, and the" /
    "`cuda_graph_modules` key, come in 0.18."): what a setting's clause says after the wrap."""
    if re.match(r"\s*(?:->|→|=>)\s", following):  # "old flags" / "    ->  new flags": the line is the old side
        return following.strip()[:WINDOW]
    if not following.strip() or _WRAP_ENDS.search(line) or _ITEM_START.match(following) or \
            (code_like(line) and not _PROSE_ITEM.match(line)) or code_like(following):
        return ""  # a line of code is a statement, not half a sentence ("- If a script …" is a bullet)
    end = _SENTENCE.search(following)
    return following[:end.end() if end else len(following)][:WINDOW]
