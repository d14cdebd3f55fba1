"""The case an option in prose is offered for, as the settings that case means.

"Drop-and-pad variant instead: `[moe]`", "If your MoE is actually drop-and-pad (capacity factor +
pad to capacity), cuda_graph_modules: [moe] is the alternative": the option is right for that
case, not for the user's dropless model. The case is yielded as a described if-case block before
the option, so the option is judged with the settings the case means (MCore's own test of
drop-and-pad: a capacity factor set and padding to capacity on) and those settings are its premise,
not its advice (:func:`extract._with_case`).
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from skill_tools.evaluation.fragments import Block
from skill_tools.evaluation.polarity import ALTERNATIVE, DESCRIBED, IF_CASE

_DROPPAD_CASE = re.compile(r"\bdrop[- ]?and[- ]?pad\b|\bdrop-?padding\b|\bpad(?:ded|ding)? to capacity\b", re.I)
_DROPPAD_KEYS = "model.moe_expert_capacity_factor=1.0\nmodel.moe_pad_expert_input_to_capacity=true"


def with_case(located: Iterable[tuple[int, Block]], text: str, lead: str, line: int) -> Iterator[Block]:
    """The blocks of one line of prose (each given with where it starts), with the drop-and-pad
    case before the first option the text before it offers for that case."""
    cased = False
    for start, block in located:
        before = (lead[-80:] + " " if lead and start < 80 else "") + text[max(0, start - 160):start]
        if block.role == ALTERNATIVE and not cased and _DROPPAD_CASE.search(before) and "dropless" not in before.lower():
            cased = True
            yield Block("hydra", _DROPPAD_KEYS, line, "prose", DESCRIBED, why=IF_CASE)
        yield block
