"""Checks every answer to this skill's tasks gets, whatever its rubric says: what the answer
writes must be accepted by the real parsers of what it writes. Each yields a behavior with no
rubric index (``derived``), so the report shows it apart from the task's own behaviors.

- the ``skill-tools`` commands it gives parse (skill-tools' own command-line parser);
- the config keys it writes are fields of their sections: a key one spelling away from a field
  (``model.virtual_pipeline_parallel_size`` for ``virtual_pipeline_model_parallel_size``) is
  refused by Bridge's dataclasses, or silently keeps the default where a config is assembled
  from overrides; off-topic tasks included, since the user runs what the answer writes.
"""

from __future__ import annotations

from typing import Iterator

from skill_tools.evaluation.answer_context import CheckResult
from skill_tools.evaluation.extract import Extraction
from skill_tools.evaluation.keys import written_under_model
from skill_tools.evaluation.tool_commands import Refusal, check_tool_commands

#: (behavior name, its note) per derived check type.
BEHAVIORS = {
    "tool_commands": ("the skill-tools commands it gives would run", "derived: skill-tools' own command-line parser"),
    "key_spelling": ("the config keys it writes are fields of their sections",
                     "derived: Bridge's ConfigContainer field names (data/config_keys.json)"),
}


def misspelled(keys, text: str) -> list[tuple[str, str]]:
    """``(model.virtual_pipeline_parallel_size, model.virtual_pipeline_model_parallel_size)``: a key
    that is not a field of its section and is close to one that is. A ``model.`` key counts only
    where the answer itself puts it there (readers place bare unknown keys under ``model.``)."""
    from skill_tools.rules.key_checks import close_key

    out = []
    for key in sorted(keys):
        match = close_key(key)
        if match is None:
            continue
        section, _, rest = key.partition(".")
        if section == "model" and not written_under_model(rest.split(".", 1)[0], text):
            continue
        out.append((key, match))
    return out


def check_key_spelling(text: str, ex: Extraction, written: frozenset[str]) -> CheckResult | None:
    if ex.unsafe:
        return None
    wrong = misspelled([k for k in written if k in ex.config.values], text)
    name = BEHAVIORS["key_spelling"][0]
    if not wrong:
        return None
    key, match = wrong[0]
    return CheckResult("key_spelling", name, 0.0, f"writes {key}, which its section does not have (did you mean "
                       f"{match}?); Bridge refuses the unknown field, or the setting silently keeps its default",
                       key, fatal=True)


def derived_checks(text: str, ex: Extraction, written: frozenset[str],
                   refusal: Refusal | None) -> Iterator[tuple[str, CheckResult]]:
    """(check type, result) for each derived check that has something to say about the answer."""
    tool = check_tool_commands(text, refusal) if refusal is not None else None
    if tool is not None:
        yield "tool_commands", tool
    spelling = check_key_spelling(text, ex, written)
    if spelling is not None:
        yield "key_spelling", spelling
