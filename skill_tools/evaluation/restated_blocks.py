"""The user's own config written back before its fix: not advice.

An answer often writes the config the question states (to run a check on it, or to show "before")
and then the fixed one: "cat > cg_check.yaml" with ``cuda_graph_scope: [moe, moe_router]`` and
``use_te_rng_tracker: false`` exactly as the user has them, then "cat > cg_fixed.yaml" with
``cuda_graph_modules`` and the tracker on. Merged, the two would keep the user's deprecated key
beside its successor, a config the answer never recommends. A written block whose every setting
(two or more) is the question's own value, followed by a written block that changes one of them,
is the restated "before": it is read as described, not suggested. A config printed line by line in
a transcript (``$ cat cg.yaml`` and its output) is one such block.

A line of a written block whose own comment says it is left as the user has it
(``cfg.model.cuda_graph_impl = "full_iteration"   # unchanged``) restates that one setting: the
answer keeps it, it does not newly instruct it (:func:`kept_keys`).
"""

from __future__ import annotations

import re

from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.extract import Extraction
from skill_tools.evaluation.fragments import SUGGESTED, Block
from skill_tools.evaluation.polarity import DESCRIBED
from skill_tools.evaluation.precedence import WRITTEN_ORIGINS, written_suggestions


def _groups(ex: Extraction) -> list[list[Block]]:
    """The answer's suggested settings, one group per written block and per run of consecutive lines
    read one by one (a config printed by ``$ cat cg.yaml`` in a transcript)."""
    groups: list[list[Block]] = []
    last_line = -2
    for b in ex.blocks:
        if b.role != SUGGESTED or b.cfg is None or b.error is not None or not b.cfg.values:
            continue
        if b.origin in WRITTEN_ORIGINS:
            groups.append([b])
            last_line = -2
        elif b.origin == "prose" and groups and groups[-1][0].origin == "prose" and 0 <= b.line - last_line <= 1:
            groups[-1].append(b)
            last_line = b.line
        elif b.origin == "prose":
            groups.append([b])
            last_line = b.line
    return groups


def demote_restated(ex: Extraction, stated: CanonicalConfig) -> bool:
    """Mark each restated-then-fixed group described; whether any was (the caller re-selects)."""
    groups = _groups(ex)
    changed = False
    for i, group in enumerate(groups):
        values = {k: v for b in group for k, v in b.cfg.values.items()}
        if len(values) < 2 or any(k not in stated.values or stated.values[k] != v for k, v in values.items()):
            continue
        later = {k: v for g in groups[i + 1:] for b in g for k, v in b.cfg.values.items()}
        if any(k in later and later[k] != v for k, v in values.items()):
            for b in group:
                b.role, b.why = DESCRIBED, "the question's own config, written back before its fix"
            changed = True
    return changed


#: A line's own comment that says its value is the user's, left as it is.
_KEPT = re.compile(r"(?:#|//)\s*\(?(?:unchanged|already (?:set|on|off|there|in place)|as (?:before|is|you have it|today)|"
                   r"(?:you )?already have (?:this|it)|no change|existing|same as (?:now|before|today))(?![\w-])", re.I)


def kept_keys(ex: Extraction) -> frozenset[str]:
    """Keys a suggested written block sets on a line commented as unchanged, with the value the
    answer's config ends up with: the user's own setting written back, not an instruction."""
    out: set[str] = set()
    for b in written_suggestions(ex.blocks):
        lines = b.text.split("\n")
        for key, loc in b.cfg.locations.items():
            at = loc.line - b.line if loc.line else -1  # locations count the answer's lines
            line = lines[at] if 0 <= at < len(lines) else ""
            if _KEPT.search(line) and ex.config.has(key) and ex.config.get(key) == b.cfg.get(key):
                out.add(key)
    return frozenset(out)
