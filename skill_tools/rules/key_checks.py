"""Config keys that no ConfigContainer section has, close to one it has: a typo the config
classes would reject (Bridge's dataclasses take no unknown field) or, in dict-built and
override-built configs, a setting that silently keeps its default.

The field names per section are data (``data/config_keys.json``) extracted with ``ast`` from
Bridge's ``ConfigContainer`` and the Megatron-LM classes it builds on
(``scripts/extract_config_keys.py``)."""

from __future__ import annotations

import difflib
import functools
from typing import Any, Iterator

from skill_tools.config.cli_tables import section_keys
from skill_tools.rules.context import Ctx

#: Sections whose classes are open-ended (PEFT subclasses, a dtype string): not checked.
_OPEN_SECTIONS = frozenset({"peft", "mixed_precision", "env_vars"})
#: Formats whose keys are written by a person (flag formats map flags to keys themselves).
_KEYED_FORMATS = frozenset({"yaml", "json", "python", "hydra", "dict", "object"})


def close_key(key: str) -> str | None:
    """For ``model.cuda_grpah_impl``: ``model.cuda_graph_impl``; None when the key is known,
    its section is not checked, or nothing is close."""
    section, _, rest = key.partition(".")
    field = rest.split(".", 1)[0]
    known = section_keys().get(section)
    if not field or known is None or section in _OPEN_SECTIONS or field in known:
        return None
    match = difflib.get_close_matches(field, _of_similar_length(section, len(field)), n=1, cutoff=0.85)
    return f"{section}.{match[0]}" if match else None


#: Unknown keys one config gets a "did you mean" lookup for: a real config has a handful; a
#: generated 5 MB file of unknown keys would otherwise cost one fuzzy match per key (31 s).
MAX_LOOKUPS = 200


@functools.lru_cache(maxsize=None)
def _of_similar_length(section: str, length: int) -> tuple[str, ...]:
    """The section's fields whose length allows a 0.85 match (ratio <= 2*min/(sum of lengths))."""
    return tuple(k for k in sorted(section_keys()[section]) if 2 * min(len(k), length) >= 0.85 * (len(k) + length))


def _written_keys(ctx: Ctx) -> list[str]:
    if ctx.cfg.fmt in _KEYED_FORMATS:
        return list(ctx.cfg.values)
    # run_script.py lines: only the Hydra overrides at the end name keys
    out = []
    for token, _ in ctx.cfg.overrides:
        key = token.split("=", 1)[0].lstrip("+~")
        out.append(key if "." in key else "model." + key)
    return out


def config_key_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for key in _written_keys(ctx)[:MAX_LOOKUPS]:
        match = close_key(key)
        if match is None:
            continue
        value = ctx.cfg.get(key)
        yield {"key": key, "match": match, "keys": [key],
               "fix": {key: "<remove>", match: value}}
