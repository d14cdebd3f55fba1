"""Labels that recast the settings under them: a paragraph headed as the eager control of a
comparison, a list under a "don't" label, a Markdown quote of what the user said. Each rewrites
the role a sentence's own words gave a setting (:mod:`polarity`); offered or recommended settings
become described or counterexamples, rejected ones stay rejected.
"""

from __future__ import annotations

import re
from typing import Iterator

from skill_tools.evaluation.fragments import COUNTEREXAMPLE, SUGGESTED, Block
from skill_tools.evaluation.polarity import ALTERNATIVE, DESCRIBED

#: A label over a list of what not to do ("DON'T", "**Avoid:**", "## Pitfalls"), and the lines of that list.
DONT_LABEL = re.compile(r"^\s{0,3}(?:#{1,6}\s+|\*{1,3}\s+)?(?:\*\*|__)?\s*(?:don'?ts?|do not|avoid|never|pitfalls|anti-?patterns|"
                         r"non-?fix(?:es)?|not (?:a )?fix(?:es)?|(?:what|things that) (?:won'?t|doesn'?t|does not|will not) (?:help|fix it)|"
                         r"what not to do|not this|mistakes to avoid|what (?:i|we|you)(?:'d| would| should)? (?:not do|avoid)|"
                         r"what (?:i|we) wouldn'?t do|(?:things|options|approaches) to avoid|not recommended|rejected options?)(?:\*\*|__)?\s*:?(?:\*\*|__)?\s*$", re.I)
ITEM_OR_MORE = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s|^\s{2,}\S")
INSTEAD = re.compile(r"\b(?:instead|rather|prefer)\b", re.I)


#: A paragraph's first line naming it the eager control of a comparison: a Make/just target
#: ``eager iters="40":``, a Taskfile's ``train:eager-baseline:``, ``# eager baseline, same everything else``,
#: ``echo "== eager run =="``.
CONTROL_RUN = re.compile(r"^\s*(?:(?:#+|//|echo\b)[^\n]*?\b(?:eager|graphs?[- ]off|no[- ]graphs?)\b"
                         r"(?![^\n]*\b(?:vs\.?|versus|then|and|or)\b)|"
                         r"[\w:.-]*\b(?:eager|graphs?[- ]off|no[- ]graphs?)\b[\w:.-]*(?:\s+[^:\n]*)?:\s*$)", re.I)


def control_run(blocks) -> Iterator[Block]:
    for block in blocks:
        if block.role in (SUGGESTED, ALTERNATIVE):
            block.role, block.why = DESCRIBED, "the eager control of a comparison"
        yield block


def listed_as_dont(blocks) -> Iterator[Block]:
    for block in blocks:
        if block.role in (SUGGESTED, ALTERNATIVE):
            block.role, block.why = COUNTEREXAMPLE, "listed under a don't label"
        yield block


def described_quote(blocks) -> Iterator[Block]:
    """Settings in a Markdown quote are what the user (or a log) said: neither recommended nor
    rejected by the answer."""
    for block in blocks:
        if block.role in (SUGGESTED, ALTERNATIVE):
            block.role, block.why = DESCRIBED, "quoted, not recommended"
        yield block
