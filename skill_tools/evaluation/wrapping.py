"""Hard-wrapped prose: whether a line goes on with the sentence of the line before, or breaks off
mid-sentence and the next line finishes it; and the text with such breaks joined (:func:`unwrapped`),
where claims and timing advice are read one sentence at a time. A setting's polarity is judged on its whole sentence
(:class:`polarity.LinePolarity` takes the lead and the trail these return), so a wrap between
"removed `x` and" and "`y`; now …" does not cut the verb off its object.
"""

from __future__ import annotations

import re
from functools import lru_cache

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


#: A line that goes on with the sentence above it (a hard-wrapped paragraph): not a list item, a
#: quote, a table row, a heading or a fence, and starting in lower case.
_GOES_ON = re.compile(r"\n(?=[ \t]*[a-z(`'\"])(?![ \t]*(?:[-*+•]\s|\d{1,3}[.)]\s))")


@lru_cache(maxsize=8)
def unwrapped(text: str) -> str:
    """``text`` with the line breaks of hard-wrapped sentences as spaces (positions kept), box
    borders blanked and a comment that goes on over its next line joined:
    "`moe_pad_expert_input_to_capacity` only pads … and is a" / "throughput knob" is one clause."""
    return _GOES_ON.sub(" ", _comments_joined(_panel_text(text)))


_COMMENT_LINE = re.compile(r"^[ \t]*(--|#+|//|;+|%)[ \t]")
#: The borders of a text panel (a box-drawn card or cheat sheet).
_BORDER = re.compile(r"[│┃║╎┆┊]")
_ENDS = ("", ".", "!", "?", ":", ";")


def _joined(text: str, chars: list[str], goes_on, marker=None) -> str:
    """``chars`` (``text``'s characters, or a same-length rewrite of them) with the break after each
    line that ``goes_on(line, following)`` says continues into the next as a space, and the span
    ``marker(following)`` names in that next line (its comment marker) blanked too."""
    pos = 0
    lines = text.split("\n")
    for line, following in zip(lines, lines[1:]):
        pos += len(line)  # the position of this line's break
        if goes_on(line, following):
            chars[pos] = " "
            lo, hi = marker(following) if marker else (0, 0)
            chars[pos + 1 + lo:pos + 1 + hi] = " " * (hi - lo)
        pos += 1
    return "".join(chars)


def _comments_joined(text: str) -> str:
    """A sentence that goes on over the next comment line ("-- … are normal bf16" / "-- nondeterminism
    and can be ignored.") is one clause: the break between two lines of the same comment style
    becomes a space when the first does not end a sentence and the second goes on in lower case."""
    def goes_on(line: str, following: str) -> bool:
        a, b = _COMMENT_LINE.match(line), _COMMENT_LINE.match(following)
        return bool(a and b and a.group(1) == b.group(1) and line.rstrip()[-1:] not in _ENDS
                    and following[b.end():].lstrip()[:1] in tuple("abcdefghijklmnopqrstuvwxyz(`'\""))

    def marker(following: str) -> tuple[int, int]:  # the next line's comment marker becomes spaces too
        return _COMMENT_LINE.match(following).span(1)

    return _joined(text, list(text), goes_on, marker) if "\n" in text else text


def _panel_text(text: str) -> str:
    """``text`` with the borders of box-drawn panels blanked and a panel line that goes on (no
    sentence end before its right border) joined to the next: "Gated DeltaNet is … same family as │"
    / "│ Mamba-2, so its layers go under the mamba scope." is one clause. Positions are kept."""
    def goes_on(line: str, following: str) -> bool:
        inner = line.strip()
        return inner[:1] in "│┃║" and following.strip()[:1] in "│┃║" and _BORDER.sub("", inner).strip()[-1:] not in _ENDS

    return _joined(text, list(_BORDER.sub(" ", text)), goes_on) if _BORDER.search(text) else text
