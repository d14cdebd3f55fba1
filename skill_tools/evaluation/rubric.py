"""Rubric checks: each one scores one aspect of an answer and explains the score with evidence.

A check sees the answer text and what :mod:`extract` found in it; it never sees anything
executed. Concept checks (here) match synonyms on normalised text (case, ``-``/``_`` folded);
config checks (:mod:`config_checks`) read the suggested :class:`CanonicalConfig`; graph checks read
the era-neutral :class:`GraphIntent`, so an answer may spell its config for either MCore era.
:data:`CHECKS` is the registry of check types the task set's rubric may name.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable

from skill_tools.evaluation.answer_context import (  # noqa: F401  (re-exported: the checks' vocabulary)
    GRAPH_KEY_MARKERS,
    STOP_WORDS as _STOP,
    AnswerContext,
    CheckResult,
    _synonym_pattern,
    find_mentions,
    normalise,
    quote,
)
from skill_tools.evaluation.config_checks import (  # noqa: F401
    answer_errors,
    check_config,
    check_env,
    check_era_spelling,
    check_executes,
    check_graph,
    check_no_graph_config,
    check_validates,
    check_written_settings,
)
from skill_tools.evaluation.stated_setup import restated_keys  # noqa: F401
from skill_tools.evaluation.claims import check_claim_absent
from skill_tools.evaluation.version_floors import check_version_floor
from skill_tools.evaluation.timing_window import check_timing_window
from skill_tools.evaluation.domain import check_domain
from skill_tools.evaluation.config_checks import _same
from skill_tools.evaluation.fragments import SUGGESTED
from skill_tools.evaluation.polarity import ALTERNATIVE, REJECTED
from skill_tools.evaluation.recipe_vars import expanded


# --------------------------------------------------------------------------------------------
# check implementations
# --------------------------------------------------------------------------------------------


#: A concept that is itself a restriction ("not supported", "cannot combine", "incompatible"): a
#: negation beside it ("不能同时开：… not supported") restates it, it does not contradict it.
_NEGATIVE_TERM = re.compile(r"(?:not|no|cannot|can'?t|never|incompatible|unsupported|without|mutually exclusive)\b", re.I)


def check_concept(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec["name"]
    hits = find_mentions(ctx, spec["any"])
    affirmed = hits if spec.get("negated_ok") else [(p, syn) for p, syn in hits
                                                     if _NEGATIVE_TERM.match(syn) or ctx.polarity(p, len(syn)).role != REJECTED]
    required_all = spec.get("all", [])
    missing_all = [s for s in required_all if not find_mentions(ctx, [s])]
    if affirmed and not missing_all:
        pos, syn = affirmed[0]
        return CheckResult("concept", name, 1.0, f"mentions {name} ({syn!r})", quote(ctx.text, pos))
    written = written_setting(ctx, spec["any"])
    if written and not missing_all:
        return CheckResult("concept", name, 1.0, f"writes {name} as a setting ({written})", written)
    if hits and not affirmed:
        pos, syn = hits[0]
        why = ctx.polarity(pos, len(syn)).why
        return CheckResult("concept", name, 0.0, f"mentions {name} ({syn!r}) only negated or contradicted ({why})",
                           quote(ctx.text, pos), fatal=bool(spec.get("required")))
    if hits:
        return CheckResult("concept", name, 0.0, f"mentions {name} but not {', '.join(map(repr, missing_all))}",
                           quote(ctx.text, hits[0][0]))
    filled = expanded(ctx.text)  # `{{st}} recommend` under `st := "skill-tools"`: what the user types
    found = [t for t in spec["any"] if normalise(t) in normalise(filled)] if filled != ctx.text and not required_all else []
    if found:
        term = found[0]
        return CheckResult("concept", name, 1.0, f"mentions {name} ({term!r}) once the recipe file's variables "
                           "are filled in", term)
    if ctx.prose_language != "en":
        return CheckResult("concept", name, 0.5, f"half credit: the answer's prose is not in English and {name} is "
                           f"looked for by English words ({', '.join(spec['any'][:4])}); a judge (--judge-cmd) reads it")
    required = bool(spec.get("required"))
    return CheckResult("concept", name, 0.0, ("required: " if required else "") +
                       f"does not mention {name} (looked for: {', '.join(spec['any'][:6])})", fatal=required)


#: A knob written with the value that keeps graphs off ("it ships `cuda_graph_impl = "none"`").
_OFF_VALUE = re.compile(r"""[`'"]?\s*[:=]\s*[`'"]?(?:none|false|null)\b""", re.I)


def check_concept_absent(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec["name"]
    hits = find_mentions(ctx, spec["any"])
    affirmative = [(p, s) for p, s in hits if ctx.polarity(p, len(s)).role != REJECTED  # an alternative offered is advice too
                   and not _OFF_VALUE.match(ctx.text, p + len(s))
                   and not ctx.text[ctx.text.rfind("\n", 0, p) + 1:p].lstrip().startswith(">")]  # quoted words: not the answer's
    if affirmative and ctx.prose_language != "en" and not ctx.config.values and \
            all(not ctx.polarity(p, len(s)).why for p, s in affirmative):
        # named in prose that is not English, with no English word that asks for it and no setting
        # written: whether the sentence recommends or dismisses it is for a judge (--judge-cmd)
        pos, syn = affirmative[0]
        return CheckResult("concept_absent", name, 0.5, f"half credit: names {name} ({syn!r}) in prose that is not "
                           "English, with no setting written; whether it recommends or dismisses it is read by a judge",
                           quote(ctx.text, pos))
    if affirmative:
        pos, syn = affirmative[0]
        return CheckResult("concept_absent", name, 0.0, f"recommends {name} ({syn!r}) where it does not belong",
                           quote(ctx.text, pos), fatal=True)
    if hits:
        return CheckResult("concept_absent", name, 1.0, f"mentions {name} only to rule it out",
                           quote(ctx.text, hits[0][0]))
    return CheckResult("concept_absent", name, 1.0, f"stays clear of {name}")



def written_setting(ctx: AnswerContext, synonyms: list[str]) -> str:
    """A synonym that is itself a setting (``cuda_graph_impl="full_iteration"``) is also met by the
    answer writing that setting in any spelling its readers understand (a dict of dotted overrides,
    YAML, a flag), in a block it does not reject."""
    wanted = [s for s in (_setting_of(syn) for syn in synonyms) if s is not None]
    if not wanted:
        return ""
    for block in ctx.extraction.blocks:
        if block.cfg is None or block.error is not None or block.role not in (SUGGESTED, ALTERNATIVE):
            continue
        for key, value in block.cfg.values.items():
            leaf = key.rsplit(".", 1)[-1]
            for want_leaf, want_value in wanted:
                if leaf == want_leaf and _same(value, want_value):
                    return f"{key}={value!r}"
        for want_leaf, want_value in wanted:  # a value a later dict or file of the same block replaced
            if isinstance(want_value, (str, int, float)) and not isinstance(want_value, bool):
                m = re.search(r"(?<![\w-])" + re.escape(want_leaf) + r"[\"']?\s*[:=]\s*[\"']?" +
                              re.escape(str(want_value)) + r"(?![\w-])", block.text)
                if m:
                    return m.group(0)
    return ""


@lru_cache(maxsize=1024)
def _setting_of(synonym: str) -> tuple[str, Any] | None:
    if not re.search(r"[=:]|^--|\s--", synonym):
        return None
    from skill_tools.evaluation.extract import extract_config

    cfg = extract_config(synonym, source="synonym", era=None).config
    if len(cfg.values) != 1:
        return None
    key, value = next(iter(cfg.values.items()))
    return key.rsplit(".", 1)[-1], value


_GRAPH_WORDS = re.compile(r"(?<![a-z])(?:cuda ?graphs?|cudagraphs?|graphs?|graphed|capture[ds]?|replay(?:s|ed)?)(?![a-z])")
_QWORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]{5,}")


def check_on_topic(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    """The answer addresses the question: it speaks of CUDA graphs or uses the question's own terms."""
    name = spec.get("name") or "answers the question asked"
    m = _GRAPH_WORDS.search(ctx.norm)
    graph_keys = [k for k in ctx.config.values if any(g in k for g in GRAPH_KEY_MARKERS)]
    if m or graph_keys:
        return CheckResult("on_topic", name, 1.0, "speaks of CUDA graphs or suggests settings",
                           quote(ctx.text, m.start()) if m else "")
    words = {normalise(w).strip(".") for w in _QWORD.findall(spec.get("question", ""))} - _STOP - _QSTOP
    shared = sorted(w for w in words if _synonym_pattern(w).search(ctx.norm))
    if len(shared) >= 2 or (shared and len(words) < 3):  # one shared word ("memory") is not the subject
        return CheckResult("on_topic", name, 1.0, f"uses the question's terms ({', '.join(shared[:4])})")
    return CheckResult("on_topic", name, 0.0, "never speaks of CUDA graphs or of the question's subject: off-topic")


_QSTOP = frozenset("""megatron bridge training model models should which things really going works working""".split())


CHECKS: dict[str, Callable[[AnswerContext, dict[str, Any]], CheckResult]] = {
    "concept": check_concept,
    "concept_absent": check_concept_absent,
    "claim_absent": check_claim_absent,
    "timing_window": check_timing_window,
    "version_floor": check_version_floor,
    "domain": check_domain,
    "config": check_config,
    "graph": check_graph,
    "era_spelling": check_era_spelling,
    "validates": check_validates,
    "written_settings": check_written_settings,
    "executes": check_executes,
    "no_graph_config": check_no_graph_config,
    "env": check_env,
    "on_topic": check_on_topic,
}


def run_check(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    fn = CHECKS.get(spec.get("type", ""))
    if fn is None:
        return CheckResult(str(spec.get("type")), spec.get("name", "?"), None, f"skipped: unknown check type {spec.get('type')!r}")
    unmet = _unmet(ctx, spec.get("when") or {})
    if unmet:
        return CheckResult(str(spec["type"]), spec.get("name") or str(spec["type"]), None, f"not applicable: {unmet}")
    return fn(ctx, spec)


def required_behavior(text: str, checks: list[CheckResult]) -> list[CheckResult]:
    """A fatal finding when a behavior the task marks ``required`` (its outcome: the fix or the
    verification the user must do next) is missed: checks ran and all scored 0. A missing outcome
    fails the answer as a wrong key does; a behavior none of whose checks applies is not judged."""
    scored = [c for c in checks if c.score is not None]
    if not scored or any(c.score > 0.0 for c in scored):  # half credit (prose in another language) is no miss
        return []
    why = "; ".join(c.explanation for c in scored)[:300]
    return [CheckResult("required", text, 0.0, f"required behavior missed: {why}", fatal=True)]


def _unmet(ctx: AnswerContext, when: dict[str, Any]) -> str:
    """Why a check's ``when`` condition does not hold for this answer ('' when it does)."""
    if ctx.extraction.unsafe or not when:
        return ""
    for var, part in (when.get("env_contains") or {}).items():
        if normalise(part) not in normalise(ctx.config.env.get(var, "")):
            return f"the answer does not set {var} with {part}"
    for key, want in (when.get("sets") or {}).items():
        if ctx.config.get(key) != want:
            return f"the answer does not set {key}={want!r}"
    from skill_tools.config.era import read_intent

    if not any(m in k for k in ctx.config.values for m in GRAPH_KEY_MARKERS):
        return ""  # the answer's config says nothing about graphs: the check applies, as without `when`
    intent = read_intent(ctx.config)
    on = bool(intent.enabled)
    if "graphs" in when and on != (when["graphs"] == "on"):
        return "the answer's config " + ("enables CUDA graphs" if on else "keeps CUDA graphs off")
    missing = [m for m in when.get("modules_include", []) if not on or m not in set(intent.modules)]
    if missing:
        return f"the answer's graphs do not capture {', '.join(missing)}"
    return ""


def has_check(rubric: dict[str, Any], kind: str) -> bool:
    """Whether any behavior of ``rubric`` carries a check of type ``kind`` (e.g. "executes")."""
    return any(c.get("type") == kind for b in rubric.get("behaviors", []) for c in b.get("checks", []))
