"""The user's own config written back before its fix: not advice.

An answer often writes the config the question states (to run a check on it, or to show "before")
and then the fixed one: "cat > /tmp/cg_check.yaml" with ``cuda_graph_scope: [moe, moe_router]`` and
``use_te_rng_tracker: false`` exactly as the user has them, then "cat > /tmp/cg_fixed.yaml" with
``cuda_graph_modules`` and the tracker on. Merged, the two would keep the user's deprecated key
beside its successor, a config the answer never recommends. A written block whose every setting
(two or more) is the question's own value, followed by a written block that changes one of them,
is the restated "before": it is read as described, not suggested.
"""

from __future__ import annotations

from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.extract import Extraction
from skill_tools.evaluation.fragments import SUGGESTED
from skill_tools.evaluation.polarity import DESCRIBED
from skill_tools.evaluation.precedence import WRITTEN_ORIGINS


def demote_restated(ex: Extraction, stated: CanonicalConfig) -> bool:
    """Mark each restated-then-fixed block described; whether any was (the caller re-selects)."""
    written = [b for b in ex.blocks if b.origin in WRITTEN_ORIGINS and b.role == SUGGESTED and b.cfg is not None
               and b.error is None and b.cfg.values]
    changed = False
    for i, block in enumerate(written):
        values = block.cfg.values
        if len(values) < 2 or any(k not in stated.values or stated.values[k] != v for k, v in values.items()):
            continue
        if any(k in later.cfg.values and later.cfg.values[k] != v for later in written[i + 1:] for k, v in values.items()):
            block.role, block.why = DESCRIBED, "the question's own config, written back before its fix"
            changed = True
    return changed
