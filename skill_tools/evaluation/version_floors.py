"""Version floors an answer states, checked against the one the task's feature needs.

"Delayed wgrad with attn graphs needs TE >= 2.10" sends the user to a build that still asserts
(Megatron-LM asks for TE 2.12 there); "pin transformer-engine>=2.9" allows a build that still hangs at
teardown. A task names the package and the floor its feature needs (``version_floor``: ``package``
spellings and ``min``), and this check reads every floor the answer states for that package:

- a requirement pin: ``transformer-engine>=2.10``, ``transformer_engine[pytorch]>=2.10``, and an exact
  pin (``pip install "megatron-core==0.17.1"``: the build the user would install);
- an operator or words that make the version a lower bound: "TE >= 2.10", "TE ≥ 2.10", "TE 2.10+",
  "every megatron-core from 0.16", "TE since 2.10", "landed in core_v0.17.1" (a tag names megatron-core),
  "TE 2.8 enables the reset" (the version said to bring the feature), "upgrade TE to 2.8 or newer",
  "from TE 2.8 on",
  "at least TE 2.10", "TE 2.10 or newer / later / above", "TE 2.10 is enough", "minimum TE 2.10";
- a table row whose first cell names the package and whose next cell is such a bound.

When the highest floor the answer states is below ``min``, it fails (the user would install a build
without the feature); an answer that also states a floor at or above it ("the config checks TE >=
2.10, but use >= 2.12") passes, as does a version stated without a bound ("built against TE 2.9"). A floor in a
negated or contrasting clause ("not TE >= 2.10, which is too old") is left alone.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from skill_tools.config.era import parse_version
from skill_tools.evaluation.answer_context import AnswerContext, CheckResult, quote

_VERSION = r"v?(\d+)\.(\d+)(?:\.(\d+))?"
#: A bound before the version: ">=", "≥", "at least", "minimum", "min.".
_BEFORE = r"(?:>=|≥|=>|>|\bat\s+least\b|\bminimum(?:\s+of)?\b|\bmin\.?|\b(?:introduced|added|landed|arrived|shipped)\s+in\b)"
#: A bound after it: "+", "or newer", "and later", "is enough", "suffices".
_AFTER = r"(?:\+|\s*(?:or|and)\s+(?:newer|later|above|higher|up)\b|\s+(?:is|are)\s+(?:enough|sufficient|fine|ok)\b|\s+suffices\b|\s+onward|" \
         r"\s+(?:enables|added|adds|introduced|introduces|brings|brought|ships|shipped|supports)\b)"  # "TE 2.8 enables the reset"
#: A bound advised later on the same line without the package's name: "TE >= 2.10 (use >= 2.12; …)".
_BARE_ADVICE = re.compile(r"\b(?:use|prefer|recommend(?:ed)?|better|ideally|rather)\s*:?\s*(?:>=|≥)\s*" + _VERSION, re.I)
_NEGATED = re.compile(r"\b(?:not|never|too old|older than|below|before|than)\b|n't\b", re.I)


@lru_cache(maxsize=64)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alts = "|".join(re.escape(n).replace(r"\ ", r"[\s_-]*").replace(r"\-", r"[\s_-]*").replace(r"_", r"[\s_-]*")
                    for n in sorted(names, key=len, reverse=True))
    pkg = rf"(?<![\w.])(?:{alts})(?:\[[\w,]+\])?"
    gap = r"[`*\s|:(]{0,6}"
    return re.compile(
        rf"(?:{_BEFORE}\s*{gap}{pkg}{gap}(?:version\s+)?{_VERSION}"                # at least TE 2.10
        rf"|{pkg}{gap}(?:version\s+)?(?:{_BEFORE}|==|~=|\bfrom\b|\bsince\b){gap}{_VERSION}"  # TE >= 2.10, megatron-core from 0.16, ==0.17.1
        rf"|{pkg}{gap}(?:version\s+)?(?:to\s+)?{_VERSION}(?={_AFTER})"            # TE 2.10+, upgrade TE to 2.10 or newer
        rf"|\bfrom\s+{pkg}{gap}(?:version\s+)?{_VERSION}(?=\s+on(?:wards?)?\b))",  # from TE 2.8 on
        re.I)


def _floor(groups: tuple[str | None, ...]) -> tuple[int, int, int]:
    """The version of the first alternative that matched (each captures major, minor, patch)."""
    for i in range(0, len(groups), 3):
        if groups[i] is not None:
            return int(groups[i]), int(groups[i + 1]), int(groups[i + 2] or 0)
    return (0, 0, 0)


def stated_floors(text: str, names: list[str]) -> list[tuple[int, tuple[int, int, int], str]]:
    """(position, version, matched text) of every lower bound ``text`` states for the package."""
    out = []
    for m in _pattern(tuple(names)).finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[max(line_start, m.start() - 30):m.start()]
        if _NEGATED.search(before):
            continue
        out.append((m.start(), _floor(m.groups()), m.group()))
        line_end = text.find("\n", m.end())
        for bare in _BARE_ADVICE.finditer(text, m.end(), len(text) if line_end < 0 else line_end):
            out.append((bare.start(), _floor(bare.groups()), bare.group()))
    return out


def check_version_floor(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec["name"]
    need = parse_version(str(spec["min"]), "version_floor.min")
    floors = stated_floors(ctx.text, list(spec["package"]))
    if floors and max(v for _, v, _ in floors) < need:  # "TransformerConfig checks TE >= 2.10 … use >= 2.12": the highest is followed
        pos, _, said = min(floors, key=lambda f: f[1])
        note = f" ({spec['note']})" if spec.get("note") else ""
        return CheckResult("version_floor", name, 0.0, f"states the floor {' '.join(said.split())!r}, below "
                           f"{spec['min']}{note}", quote(ctx.text, pos), fatal=True)
    if floors:
        return CheckResult("version_floor", name, 1.0, f"states the floor {' '.join(floors[0][2].split())!r}")
    return CheckResult("version_floor", name, None, "not applicable: states no version floor for it")
