"""Rubric checks: each one scores one aspect of an answer and explains the score with evidence.

A check sees the answer text and what :mod:`extract` found in it; it never sees anything
executed. Concept checks match synonyms on normalised text (case, ``-``/``_`` folded);
config checks read the suggested :class:`CanonicalConfig`; graph checks read the era-neutral
:class:`GraphIntent`, so an answer may spell its config for either MCore era.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from skill_tools.config.era import DEFAULT_CURRENT, DEFAULT_LEGACY, Era, era_for, migrations, read_intent
from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.extract import Extraction
from skill_tools.evaluation.polarity import ALTERNATIVE, REJECTED, LinePolarity, Polarity

GRAPH_KEY_MARKERS = ("cuda_graph", "te_rng_tracker", "enable_cuda_graph", "external_cuda_graph")
_CONTEXT = 70


@dataclass
class CheckResult:
    """One check's verdict: ``score`` in [0, 1] or ``None`` when it could not run (skipped)."""

    type: str
    name: str
    score: float | None
    explanation: str
    evidence: str = ""
    fatal: bool = False  # a contradicted requirement or a validator error of the answer's own settings

    @property
    def passed(self) -> bool | None:
        return None if self.score is None else self.score >= 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "score": self.score, "passed": self.passed,
                "fatal": self.fatal, "explanation": self.explanation, "evidence": self.evidence}


@dataclass
class AnswerContext:
    """Everything the checks may look at for one answer."""

    text: str
    extraction: Extraction
    era: Era
    validation: dict[str, Any] | None = None  # {"errors": [...], "warnings": [...]} or {"skipped": reason}
    execution: dict[str, Any] | None = None  # ExecutionResult.to_dict() or {"skipped": reason}
    answer_keys: frozenset[str] = frozenset()  # keys the answer itself sets (not the task's context)
    _norm: str | None = field(default=None, repr=False)
    _lines: list[int] | None = field(default=None, repr=False)
    _pol: dict[int, LinePolarity] = field(default_factory=dict, repr=False)

    def polarity(self, pos: int, length: int = 1) -> Polarity:
        """What the answer says about the mention at ``pos``: its own clause decides (linear overall)."""
        import bisect
        if self._lines is None:
            self._lines = [0] + [i + 1 for i, ch in enumerate(self.text) if ch == "\n"]
        n = bisect.bisect_right(self._lines, pos) - 1
        if n not in self._pol:
            start = self._lines[n]
            end = self._lines[n + 1] - 1 if n + 1 < len(self._lines) else len(self.text)
            self._pol[n] = LinePolarity(self.text[start:end])
        start = self._lines[n]
        return self._pol[n].at(pos - start, pos - start + length)

    @property
    def config(self) -> CanonicalConfig:
        return self.extraction.config

    @property
    def norm(self) -> str:
        if self._norm is None:
            self._norm = normalise(self.text)
        return self._norm


def normalise(text: str) -> str:
    """Lower-case and fold ``-``/``_`` to spaces, keeping every character position."""
    return text.lower().translate(_FOLD)


_FOLD = str.maketrans({"-": " ", "_": " "})


@lru_cache(maxsize=4096)
def _synonym_pattern(synonym: str) -> re.Pattern[str]:
    words = normalise(synonym).split()
    body = r"\s+".join(re.escape(w) for w in words)
    tail = r"(?![a-z0-9])" if len(synonym) <= 3 else ""
    return re.compile(r"(?<![a-z0-9])" + body + tail)


def find_mentions(ctx: AnswerContext, synonyms: list[str]) -> list[tuple[int, str]]:
    """(position, synonym) of every mention, in text order."""
    out = []
    for syn in synonyms:
        for m in _synonym_pattern(syn).finditer(ctx.norm):
            out.append((m.start(), syn))
    return sorted(out)


def quote(text: str, pos: int, width: int = _CONTEXT) -> str:
    start = max(0, pos - width // 2)
    snippet = " ".join(text[start:pos + width].split())
    return ("…" if start else "") + snippet + ("…" if pos + width < len(text) else "")


# --------------------------------------------------------------------------------------------
# check implementations
# --------------------------------------------------------------------------------------------


def check_concept(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec["name"]
    hits = find_mentions(ctx, spec["any"])
    affirmed = hits if spec.get("negated_ok") else [(p, syn) for p, syn in hits
                                                     if ctx.polarity(p, len(syn)).role != REJECTED]
    required_all = spec.get("all", [])
    missing_all = [s for s in required_all if not find_mentions(ctx, [s])]
    if affirmed and not missing_all:
        pos, syn = affirmed[0]
        return CheckResult("concept", name, 1.0, f"mentions {name} ({syn!r})", quote(ctx.text, pos))
    if hits and not affirmed:
        pos, syn = hits[0]
        why = ctx.polarity(pos, len(syn)).why
        return CheckResult("concept", name, 0.0, f"mentions {name} ({syn!r}) only negated or contradicted ({why})",
                           quote(ctx.text, pos))
    if hits:
        return CheckResult("concept", name, 0.0, f"mentions {name} but not {', '.join(map(repr, missing_all))}",
                           quote(ctx.text, hits[0][0]))
    return CheckResult("concept", name, 0.0, f"does not mention {name} (looked for: {', '.join(spec['any'][:6])})")


def check_concept_absent(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec["name"]
    hits = find_mentions(ctx, spec["any"])
    affirmative = [(p, s) for p, s in hits if ctx.polarity(p, len(s)).role not in (REJECTED, ALTERNATIVE)]
    if affirmative:
        pos, syn = affirmative[0]
        return CheckResult("concept_absent", name, 0.0, f"recommends {name} ({syn!r}) where it does not belong",
                           quote(ctx.text, pos), fatal=True)
    if hits:
        return CheckResult("concept_absent", name, 1.0, f"mentions {name} only to rule it out",
                           quote(ctx.text, hits[0][0]))
    return CheckResult("concept_absent", name, 1.0, f"stays clear of {name}")


def check_config(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    keys: list[str] = spec["keys"]
    cfg = ctx.config
    name = spec.get("name") or keys[0]
    present = [k for k in keys if cfg.has(k)]
    if ctx.extraction.unsafe and not spec.get("absent"):
        return CheckResult("config", name, 0.0, "the answer carries a security finding; its config is not trusted")
    if spec.get("absent"):
        if present:
            k = present[0]
            return CheckResult("config", name, 0.0, f"sets {k}={cfg.get(k)!r}, which should be left out",
                               _where(cfg, k), fatal=True)
        return CheckResult("config", name, 1.0, f"leaves {' / '.join(keys)} unset")
    counter = ctx.extraction.counter_config
    rejected = [k for k in keys if counter.has(k) and _value_ok(counter.get(k), spec)[0] and "not_in" not in spec]
    if not present:
        if rejected:
            k = rejected[0]
            return CheckResult("config", name, 0.0, f"the answer rejects the required {k}={counter.get(k)!r}",
                               _where(counter, k), fatal=True)
        if "not_in" in spec:
            return CheckResult("config", name, 0.0 if spec.get("required") else 0.5,
                               f"{' / '.join(keys)} not set: the answer does not say (default applies)")
        return CheckResult("config", name, 0.0, f"{' / '.join(keys)} not set in the suggested config"
                           + _found_summary(cfg))
    key = present[0]
    value = cfg.get(key)
    ok, want = _value_ok(value, spec)
    verdict = "as required" if ok else f"expected {want}"
    return CheckResult("config", name, 1.0 if ok else 0.0, f"{key}={value!r}: {verdict}", _where(cfg, key),
                       fatal=not ok)


def _value_ok(value: Any, spec: dict[str, Any]) -> tuple[bool, str]:
    if "equals" in spec:
        return _same(value, spec["equals"]), f"{spec['equals']!r}"
    if "in" in spec:
        return any(_same(value, v) for v in spec["in"]), f"one of {spec['in']!r}"
    if "not_in" in spec:
        return not any(_same(value, v) for v in spec["not_in"]), f"none of {spec['not_in']!r}"
    num = _number(value)
    if "at_least" in spec:
        return num is not None and num >= spec["at_least"], f">= {spec['at_least']}"
    if "at_most" in spec:
        return num is not None and num <= spec["at_most"], f"<= {spec['at_most']}"
    return True, "any value"


def _same(a: Any, b: Any) -> bool:
    if isinstance(b, bool) or isinstance(a, bool):
        return _boolish(a) is not None and _boolish(a) == _boolish(b)
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        return _number(a) == b
    if isinstance(b, list) or isinstance(a, list):
        from skill_tools.config.model import as_name_list
        return sorted(as_name_list(a)) == sorted(as_name_list(b))
    return str(a).strip().lower() == str(b).strip().lower()


def _boolish(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "1", "yes", "on"):
        return True
    if isinstance(v, str) and v.strip().lower() in ("false", "0", "no", "off", "none", "null"):
        return False
    return None


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(str(v))
    except ValueError:
        return None


def _where(cfg: CanonicalConfig, key: str) -> str:
    loc = cfg.locations.get(key)
    return f"{key}={cfg.get(key)!r}" + (f" (line {loc.line})" if loc and loc.line else "")


def _found_summary(cfg: CanonicalConfig) -> str:
    if not cfg.values and not cfg.env:
        return " (no config extracted from the answer)"
    keys = [k for k, _ in cfg][:6]
    return f" (found: {', '.join(keys)}{', …' if len(cfg.values) > 6 else ''})"


def check_graph(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    cfg = ctx.config
    intent = read_intent(cfg)
    name = spec.get("name") or "CUDA-graph settings"
    if ctx.extraction.unsafe:
        return CheckResult("graph", name, 0.0, "the answer carries a security finding; its config is not trusted")
    spelled = ", ".join(f"{k}={cfg.get(k)!r}" for k in sorted(set(intent.spelled_by.values())) if cfg.has(k))
    desc = f"impl={intent.impl}, modules={list(intent.modules) or '(whole layer)'}"
    if intent.inference_scope:
        desc += f", inference_scope={intent.inference_scope}"
    problems: list[str] = []
    if "enabled" in spec and intent.enabled != spec["enabled"]:
        problems.append("graphs enabled" if intent.enabled else "graphs not enabled")
    if "impl" in spec and intent.impl not in spec["impl"]:
        problems.append(f"impl {intent.impl!r} not in {spec['impl']}")
    mods = set(intent.modules)
    if "modules_include" in spec:
        miss = [m for m in spec["modules_include"] if m not in mods]
        if miss:
            problems.append(f"missing module(s) {miss}")
    if "modules_exclude" in spec:
        bad = [m for m in spec["modules_exclude"] if m in mods]
        if bad or (intent.enabled and intent.impl == "transformer_engine" and not mods
                   and spec.get("whole_layer_counts_as_excluded", True)):
            problems.append(f"captures excluded module(s) {bad or '(whole layer)'}")
    if "modules_subset_of" in spec:
        allowed = set(spec["modules_subset_of"])
        extra = sorted(mods - allowed)
        if extra or (intent.impl == "transformer_engine" and not mods and "whole_layer" not in allowed):
            problems.append(f"modules {extra or '(whole layer)'} outside {sorted(allowed)}")
    if "inference_scope" in spec and intent.effective_inference_scope not in spec["inference_scope"]:
        problems.append(f"inference scope {intent.effective_inference_scope!r} not in {spec['inference_scope']}")
    if problems:
        # Graphs configured the wrong way contradict the task; no graph settings at all is only vague.
        fatal = intent.enabled or spec.get("enabled") is False
        return CheckResult("graph", name, 0.0, f"{desc}: " + "; ".join(problems), spelled, fatal=bool(fatal))
    return CheckResult("graph", name, 1.0, f"{desc}: as required", spelled)


def check_era_spelling(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    era = era_for(DEFAULT_CURRENT if spec["era"] == "current" else DEFAULT_LEGACY)
    cfg = ctx.config
    name = spec.get("name") or f"keys spelled for {era.label}"
    graph_keys = [k for k in cfg.values if any(m in k for m in GRAPH_KEY_MARKERS)]
    if ctx.extraction.unsafe:
        return CheckResult("era_spelling", name, 0.0, "the answer carries a security finding; its config is not trusted")
    if not graph_keys:
        return CheckResult("era_spelling", name, 0.0, "no CUDA-graph keys in the suggested config")
    found = migrations(cfg, era)
    if found:
        m = found[0]
        return CheckResult("era_spelling", name, 0.0, f"not {era.label}: {m.message}", f"{m.key}={m.found!r}",
                           fatal=True)
    return CheckResult("era_spelling", name, 1.0, f"graph keys ({', '.join(sorted(graph_keys))}) are correct for {era.label}")


def check_validates(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec.get("name") or "extracted config validates"
    if ctx.extraction.unsafe:
        return CheckResult("validates", name, 0.0, "the answer carries a security finding; its config is not validated")
    if not ctx.config.values:
        return CheckResult("validates", name, 0.0, "no config extracted from the answer")
    if not any(_checked_key(k) for k in ctx.answer_keys):
        return CheckResult("validates", name, 0.0, "the answer's config sets nothing the CUDA-graph rules check "
                           f"(found: {', '.join(sorted(ctx.answer_keys)[:4])}): nothing to validate")
    v = ctx.validation or {"skipped": "not validated"}
    if "skipped" in v:
        return CheckResult("validates", name, None, f"skipped: {v['skipped']}")
    errors = v.get("errors", [])
    own = answer_errors(errors, ctx.answer_keys, v.get("context_rules", []))
    other = [e for e in errors if e not in own]
    if own:
        first = own[0]
        return CheckResult("validates", name, 0.0,
                           f"{len(own)} error finding(s) for MCore {v.get('mcore_version')} on the task's setup: "
                           f"[{first.get('rule')}] {first.get('message')}", ", ".join(first.get("keys", [])), fatal=True)
    note = (f"; not charged to the answer, which does not set their keys: "
            + ", ".join(sorted({str(e.get('rule')) for e in other}))) if other else ""
    return CheckResult("validates", name, 1.0,
                       f"no error findings for MCore {v.get('mcore_version')} on the task's setup "
                       f"({len(v.get('warnings', []))} warning(s)){note}")


_CHECKED_MARKERS = GRAPH_KEY_MARKERS + ("recompute", "offload", "moe_", "num_moe_experts", "check_for_nan",
                                        "gradient_accumulation_fusion", "NCCL_", "PYTORCH_CUDA_ALLOC_CONF",
                                        "CUDA_", "parallel_size", "dropout", "fp8", "packed_sequence")


def _checked_key(key: str) -> bool:
    """A key the CUDA-graph rules read (or a graph-related environment variable)."""
    return any(m in key for m in _CHECKED_MARKERS)


def answer_errors(errors: list[dict[str, Any]], answer_keys: frozenset[str],
                  context_rules: list[str]) -> list[dict[str, Any]]:
    """The validator errors the answer is charged with: those on keys it sets, and those its settings
    bring about (absent when the task's stated setup is validated alone: an impl written without the
    RNG tracker it needs). An error the stated setup has on its own, on keys the answer leaves alone,
    is the task's, not the answer's."""
    return [e for e in errors if not e.get("keys") or set(e["keys"]) & answer_keys
            or (answer_keys and str(e.get("rule")) not in context_rules)]


def check_executes(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec.get("name") or "extracted config executes"
    if ctx.extraction.unsafe:
        return CheckResult("executes", name, 0.0, "the answer carries a security finding; its config is not executed")
    ex = ctx.execution
    if ex is None:
        return CheckResult("executes", name, None, "skipped: not requested (run with --execute on a GPU machine)")
    if "skipped" in ex:
        return CheckResult("executes", name, None, f"skipped: {ex['skipped']}")
    ok = bool(ex.get("captured")) and bool(ex.get("replayed")) and bool(ex.get("loss_ok"))
    summary = (f"captured={ex.get('captured')}, replayed={ex.get('replayed')}, loss_ok={ex.get('loss_ok')}"
               + (f", error_class={ex.get('error_class')}" if ex.get("error_class") else "")
               + (f"; refused because of the {ex['refused_by']}" if ex.get("refused_by") else ""))
    evidence = ex.get("evidence")
    if isinstance(evidence, (list, tuple)):
        evidence = "; ".join(map(str, evidence[:3]))
    return CheckResult("executes", name, 1.0 if ok else 0.0, summary, str(evidence or "")[:300])


def check_no_graph_config(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec.get("name") or "no CUDA-graph config"
    keys = [k for k in ctx.config.values if any(m in k for m in GRAPH_KEY_MARKERS)]
    env = [k for k in ctx.config.env if k in ("NCCL_GRAPH_REGISTER", "CUDA_GRAPHS_USE_NODE_PRIORITY")]
    if keys or env:
        k = (keys or env)[0]
        return CheckResult("no_graph_config", name, 0.0, f"suggests CUDA-graph settings: {', '.join(keys + env)}",
                           _where(ctx.config, k) if keys else f"{k}={ctx.config.env[k]!r}", fatal=True)
    return CheckResult("no_graph_config", name, 1.0, "suggests no CUDA-graph settings")


def check_env(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    var = spec["var"]
    name = spec.get("name") or var
    env = ctx.config.env
    if ctx.extraction.unsafe and not spec.get("absent"):
        return CheckResult("env", name, 0.0, "the answer carries a security finding; its config is not trusted")
    if spec.get("absent"):
        if var in env:
            return CheckResult("env", name, 0.0, f"sets {var}={env[var]!r}, which should not be set", f"{var}={env[var]}",
                               fatal=True)
        return CheckResult("env", name, 1.0, f"leaves {var} unset")
    if var not in env:
        return CheckResult("env", name, 0.0, f"{var} not set in the suggested environment"
                           + (f" (found: {', '.join(sorted(env))})" if env else ""))
    value = env[var]
    if "equals" in spec:
        ok = value.strip() == spec["equals"]
        want = f"= {spec['equals']!r}"
    else:
        ok = normalise(spec["contains"]) in normalise(value)
        want = f"to contain {spec['contains']!r}"
    return CheckResult("env", name, 1.0 if ok else 0.0, f"{var}={value!r}" + ("" if ok else f": expected {want}"),
                       f"{var}={value}", fatal=not ok)


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
    "config": check_config,
    "graph": check_graph,
    "era_spelling": check_era_spelling,
    "validates": check_validates,
    "executes": check_executes,
    "no_graph_config": check_no_graph_config,
    "env": check_env,
    "on_topic": check_on_topic,
}


def run_check(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    fn = CHECKS.get(spec.get("type", ""))
    if fn is None:
        return CheckResult(str(spec.get("type")), spec.get("name", "?"), None, f"skipped: unknown check type {spec.get('type')!r}")
    return fn(ctx, spec)


# --------------------------------------------------------------------------------------------
# checks derived from plain NVSkills fields (tasks without a rubric)
# --------------------------------------------------------------------------------------------

_STOP = frozenset("""about above after again against before being below between could does doing during
each either every from further have having into itself more most must only other over same should
since some such than that their them then there these they this those through under until very what
when where which while whom will with would your yours answer mention mentions explain explains
recommend recommends tell tells user users state states instead rather first also using used use uses
given keep keeps make makes whether without""".split())
_TERM = re.compile(r"`([^`]+)`|([A-Za-z][\w.]*[_.][\w.]*[A-Za-z0-9])|([A-Za-z][A-Za-z0-9+-]{4,})")

#: Knobs that only CUDA-graph advice would set; negative tasks must not recommend them.
GRAPH_ADVICE_TERMS = ["cuda_graph_impl", "cuda_graph_scope", "cuda_graph_modules", "cuda-graph-impl",
                      "cuda_graph_warmup_steps", "te_rng_tracker", "inference_cuda_graph_scope",
                      "enable_cuda_graph", "full_iteration", "make_graphed_callables"]


def behavior_terms(text: str, limit: int = 8) -> list[str]:
    """Distinctive terms of an expected-behavior sentence, code spans and identifiers first."""
    out: list[str] = []
    for m in _TERM.finditer(text):
        term = (m.group(1) or m.group(2) or m.group(3) or "").strip().rstrip(".")
        low = term.lower()
        if not term or low in _STOP or any(normalise(term) == normalise(t) for t in out):
            continue
        if m.group(3) and (len(term) < 5 or low in _STOP):
            continue
        out.append(term)
    code_first = sorted(out, key=lambda t: 0 if ("_" in t or "." in t or "`" + t + "`" in text) else 1)
    return code_first[:limit]


_SPECIFIC = re.compile(r"`[^`]+`|[A-Za-z_][\w]*(?:[._][\w]+)+|[A-Z][A-Z0-9]{2,}")
_STAY_OUT = re.compile(r"\b(?:stay(?:s)? out of|stays? clear of|do(?:es)? not (?:recommend|suggest|bring up)|"
                       r"no cuda.?graph|without cuda.?graph|avoid cuda.?graph)", re.I)


def check_coverage(ctx: AnswerContext, behavior: str) -> CheckResult:
    """A plain behavior judged on its specific terms: every key, identifier and ``KEY=VALUE`` it names
    must be affirmed by the answer (values compared with the answer's config); only a behavior
    without specific terms falls back to the share of its distinctive words."""
    from skill_tools.evaluation.extract import extract_config

    wanted = extract_config(behavior, source="behavior", era=None).config
    value_checks = [{"type": "config", "name": k, "keys": [k], "equals": v} for k, v in wanted]
    value_checks += [{"type": "env", "var": k, "equals": v} for k, v in sorted(wanted.env.items())]
    valued = {k.split(".")[-1].lower() for k in wanted.values} | {k.lower() for k in wanted.env}
    terms = behavior_terms(behavior, limit=12)
    specific = [t for t in terms if _SPECIFIC.fullmatch(t) and t.strip("`").split("=")[0].split(".")[-1].lower() not in valued]
    if value_checks or specific:
        results = [run_check(ctx, spec) for spec in value_checks]
        missing = [r.explanation for r in results if r.score != 1.0]
        fatal = any(r.fatal for r in results)
        found = 0
        for term in specific:
            hits = [(p, s) for p, s in find_mentions(ctx, [term.strip("`")]) if ctx.polarity(p, len(s)).role != REJECTED]
            if hits:
                found += 1
            else:
                missing.append(f"does not name {term}")
        total = len(results) + len(specific)
        score = round((sum(r.score or 0.0 for r in results) + found) / total, 3)
        expl = f"{total - len(missing)}/{total} specific terms and values" + (f"; {'; '.join(missing[:4])}" if missing else "")
        return CheckResult("coverage", "specific terms", score, expl, fatal=fatal)
    if not terms:
        return CheckResult("coverage", "concept coverage", None, "skipped: no distinctive terms in the behavior")
    found = [t for t in terms if find_mentions(ctx, [t])]
    missing = [t for t in terms if t not in found]
    score = round(len(found) / len(terms), 3)
    evidence = ""
    if found:
        evidence = quote(ctx.text, find_mentions(ctx, [found[0]])[0][0])
    expl = f"covers {len(found)}/{len(terms)} key terms" + (f"; missing: {', '.join(missing)}" if missing else "")
    return CheckResult("coverage", "concept coverage", min(1.0, score * 2) if score >= 0.5 else score, expl, evidence)


def stay_out_behavior(text: str) -> bool:
    """A negative task's behavior that asks the answer to stay out of CUDA-graph advice."""
    return bool(_STAY_OUT.search(text))


def reference_checks(reference: CanonicalConfig) -> list[dict[str, Any]]:
    """Config checks that compare an answer with the config stated in a task's ground truth."""
    specs: list[dict[str, Any]] = []
    intent = read_intent(reference)
    graph_keys = set()
    if intent.enabled or any(any(m in k for m in ("cuda_graph",)) for k in reference.values):
        spec: dict[str, Any] = {"type": "graph", "name": "graph settings as in the ground truth", "impl": [intent.impl]}
        if intent.modules:
            spec["modules_include"] = list(intent.modules)
        specs.append(spec)
        graph_keys = {k for k in reference.values if "cuda_graph" in k or k.endswith(("enable_cuda_graph", "external_cuda_graph"))}
    for key, value in reference:
        if key in graph_keys:
            continue
        specs.append({"type": "config", "name": key, "keys": [key], "equals": value})
    for var, value in sorted(reference.env.items()):
        specs.append({"type": "env", "var": var, "equals": value})
    return specs
