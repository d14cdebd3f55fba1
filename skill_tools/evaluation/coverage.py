"""Checks derived from plain NVSkills fields (tasks without a rubric): a behavior judged on its
specific terms and values, the config stated in ``ground_truth``, and staying out of CUDA-graph
advice on a negative task.
"""

from __future__ import annotations

import re
from typing import Any

from skill_tools.config.era import read_intent
from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.answer_context import STOP_WORDS as _STOP
from skill_tools.evaluation.answer_context import AnswerContext, CheckResult, find_mentions, normalise, quote
from skill_tools.evaluation.polarity import REJECTED
from skill_tools.evaluation.rubric import run_check

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
