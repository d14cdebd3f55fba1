"""Prose phrases of a claim matched the way people reword them: "frees the parameters" is also
"frees its gathered weights", "lower peak memory" is also "Lowest peak memory", "saves memory" is
also "saving GPU memory".

A claim's objects and rivals are short English predicates; writers inflect them (-s, -ed, -ing,
-er, -est), put a few words in between, and swap a handful of near-synonyms (weights for
parameters). Exact matching of the rubric's list then misses the claim, and the answer that makes
it passes. This module turns a multi-word phrase of plain words into a pattern that tolerates
those three things and nothing more: the words keep their order, at most three other words sit
between two of them (never a comparative or a negation), and no line break, sentence end, comma, colon or parenthesis does. Phrases with code in them
(``=``, backticks, dots) and single words are left to exact matching: an identifier is not
reworded.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Words a writer swaps for one another in these predicates (each class matches any member).
_CLASSES = (
    ("parameter", "params", "param", "weight"),
    ("memory", "vram", "hbm"),
    ("low", "less", "small", "reduc", "minim"),
    ("save", "saving", "cut", "reduc", "lower"),
    ("free", "drop", "releas", "discard", "evict"),
    ("keep", "retain", "hold", "stay", "remain"),
    ("more", "higher", "extra", "larger", "bigger"),
)
_PLAIN = re.compile(r"^[a-z]+(?: [a-z]+)+$")
#: Function words of a phrase: they may be reworded freely ("the", "its", "a").
_SKIP = frozenset("the a an its their his her of to".split())
#: Words that may not sit between two words of a phrase: a comparative or a negation there turns
#: the phrase around ("savings with *more* communication" is not "cuts communication").
_TURNS = r"(?:more|less|fewer|higher|lower|not|no|never|without|extra|but|if)"
_GAP = r"(?:[^\w\n.!?;,:()|]+(?!" + _TURNS + r"(?!\w))\w+){0,3}[^\w\n.!?;,:()|]+"


def _stem(word: str) -> str:
    """A prefix that every inflection of ``word`` starts with: "lowest" → "low", "frees" → "free",
    "saving" → "sav"."""
    for suffix in ("ing", "est", "ed", "es", "er", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _word(word: str) -> str:
    if len(word) <= 3:  # "te", "moe", "ep": a short word is itself, never a prefix ("te" is not "tensor")
        return re.escape(word) + r"(?![a-z0-9])"
    stems = {_stem(word)}
    for members in _CLASSES:
        if any(_stem(word).startswith(_stem(m)) or _stem(m).startswith(_stem(word)) for m in members):
            stems.update(_stem(m) for m in members)
    return "(?:" + "|".join(sorted(map(re.escape, stems), key=len, reverse=True)) + r")[a-z]*"


@lru_cache(maxsize=1024)
def loose_pattern(phrase: str) -> re.Pattern[str] | None:
    """The loose pattern of a plain multi-word phrase (matched on normalised text), or None."""
    words = [w for w in phrase.lower().split() if w not in _SKIP]
    if not _PLAIN.match(phrase.lower().strip()) or len(words) < 2:
        return None
    return re.compile(r"(?<![a-z0-9])" + _GAP.join(_word(w) for w in words))


def loose_mentions(norm: str, phrases: list[str]) -> list[tuple[int, str]]:
    """(position, matched text) of every loose match of the plain multi-word ``phrases`` in ``norm``:
    the matched text, not the phrase, so that its length spans what was matched."""
    out = []
    for phrase in phrases:
        pattern = loose_pattern(phrase)
        if pattern is not None:
            out.extend((m.start(), m.group()) for m in pattern.finditer(norm))
    return out
