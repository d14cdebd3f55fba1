"""Other skills' tasks: only the generic parts are scored, and the result says so.

A task set of another skill (NVIDIA/skills catalog datasets: Jetson setup, data curation, …) is
not about CUDA graphs. Its tasks are scored on their assertions as written: an assertion's specific
terms must be affirmed by the answer, an assertion that forbids something ("Does not suggest
``rm -rf``", "Never recommends …") has its terms read as forbidden (a rejected mention is fine, an
affirmed one fails), and relevance is judged by the question's own terms. No CUDA-graph check runs
(no graph knobs, no Megatron config comparison, no validator) and no CUDA-graph words count as
being on topic. An assertion with no specific terms is left to a judge (``--judge-cmd``).
"""

from __future__ import annotations

import re
from typing import Any

from skill_tools.evaluation.answer_context import STOP_WORDS, AnswerContext, CheckResult, find_mentions, normalise, quote
from skill_tools.evaluation.polarity import ALTERNATIVE, REJECTED

SKILL_NAME = "megatron-cuda-graphs"
GENERIC_NOTE = "generic: another skill's task (not about CUDA graphs); assertions as written, no CUDA-graph checks"
_ABOUT_GRAPHS = re.compile(r"cuda[ _-]?graph|cudagraph|cuda_graph_(?:impl|scope|modules)|make_graphed_callables", re.I)
#: An assertion that forbids: its subject is the answer and its verb is negated.
_FORBIDS = re.compile(r"^\s*(?:the\s+)?(?:answer|response|agent|it|model|assistant)?\s*(?:should|must|will)?\s*"
                      r"(?:does\s+not|doesn'?t|did\s+not|didn'?t|do\s+not|don'?t|never|not|must\s+not|should\s+not|"
                      r"shouldn'?t|avoids?|avoided|refrains?\s+from|refrained\s+from|is\s+not|no\b|without)\b", re.I)
#: Where a forbidding assertion's object ends and its context begins ("… SGLang for Orin").
_CONTEXT_CUT = re.compile(r"\b(?:for|when|if|unless|because|since|while|outside|on)\b", re.I)
_EXAMPLES = re.compile(r"\((?:e\.g\.?|for example|such as|like|i\.e\.?)[,:]?\s*([^)]*)\)", re.I)
#: Assertions about the agent's process (which skill it matched, what it ran), not about the answer text.
_PROCESS = re.compile(r"\b(?:matched|invoked|loaded|triggered|selected|routed)\b.*\bskill\b|"
                      r"\bskill\b.*\b(?:matched|invoked|loaded|triggered)\b", re.I)
_CAMEL = re.compile(r"(?<![\w-])[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*(?![\w-])")
_NAMING_VERBS = re.compile(r"(?:suggest|recommend|use|mention|run|include|propose|execute|call|name|reference|"
                           r"advise|tell|output|print|set|enable|install|invoke)\w*$", re.I)
_NOT_TERMS = frozenset({"not", "no", "never", "do", "did", "does", "e.g", "i.e", "etc", "the agent"})
_WARNS = re.compile(r"\b(?:warns?|advises?|cautions?|recommends?)\s+against\b|\bwarns?\s+(?:that|about)\b", re.I)
_SPECIFIC = re.compile(r"`([^`]+)`|\"([^\"]{2,60})\"|'([^'\s][^']{1,58})'|"
                       r"(?<![\w-])([A-Za-z_][\w]*(?:[._-][\w]+)+|[A-Z][A-Z0-9_]{2,}|--?[a-z][\w-]+)(?![\w-])")
_QWORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]{4,}")


def about_cuda_graphs(task_data: dict[str, Any], own_set: bool) -> bool:
    """True when CUDA-graph checks may apply: a task of this skill's own set, or one whose
    question or ground truth is about CUDA graphs."""
    if own_set:
        return True
    text = f"{task_data.get('question', '')} {task_data.get('ground_truth', '')}"
    return bool(_ABOUT_GRAPHS.search(text))


def own_task_set(tasks: list[dict[str, Any]], meta: dict[str, Any]) -> bool:
    """A set written for this skill: it names the skill, or carries this project's rubric."""
    if meta.get("skill_name") or meta.get("skill"):
        return (meta.get("skill_name") or meta.get("skill")) == SKILL_NAME
    return any(t.get("expected_skill") == SKILL_NAME or t.get("rubric") for t in tasks)


def specific_terms(text: str) -> list[str]:
    """Code spans, quoted strings, identifiers, flags and CONSTANTS of an assertion."""
    out: list[str] = []
    for m in _SPECIFIC.finditer(text):
        term = next(g for g in m.groups() if g).strip().rstrip(".")
        if term and term.lower() not in STOP_WORDS and term not in out:
            out.append(term)
    return out


def check_assertion(ctx: AnswerContext, assertion: str) -> CheckResult:
    """One assertion as written: forbidden terms must not be affirmed; warned-against terms must be
    named (rejected or not); other specific terms must be affirmed."""
    if _FORBIDS.match(assertion):
        return _forbidden(ctx, assertion)
    if _PROCESS.search(assertion):
        return CheckResult("assertion", "assertion as written", None,
                           "skipped: about the agent's process (which skill it used), not the answer text (a judge can score it)")
    terms = specific_terms(assertion)
    if not terms:
        return _word_share(ctx, assertion)
    return _affirmed(ctx, assertion, terms)


def _forbidden(ctx: AnswerContext, assertion: str) -> CheckResult:
    """A forbidding assertion: its object's terms (examples in parentheses included) must not be affirmed."""
    examples = [x.strip(" .") for m in _EXAMPLES.finditer(assertion) for x in m.group(1).split(",") if x.strip(" .")]
    head = _EXAMPLES.sub(" ", assertion)
    neg = _FORBIDS.match(head)
    verb = re.match(r"\s*(?:\w+ly\s+)?(\w+)", head[neg.end():]) if neg else None
    named: list[str] = []
    if verb and _NAMING_VERBS.match(verb.group(1)):  # "does not suggest X": X is what is forbidden
        cut = _CONTEXT_CUT.search(head, neg.end())
        obj = head[neg.end():cut.start()] if cut else head[neg.end():]
        named = [t for t in specific_terms(obj) if not re.fullmatch(r"[A-Z]{2,}", t)] + _CAMEL.findall(obj)
    terms = [t for t in dict.fromkeys(examples + named)
             if t.lower().strip(".") not in _NOT_TERMS and len(t.strip("-")) >= 2]
    if not terms:
        return CheckResult("assertion", "forbidden by the assertion", None,
                           "skipped: no specific terms name what is forbidden (a judge can score it)")
    for term in terms:
        for pos, syn in find_mentions(ctx, [term]):
            if ctx.polarity(pos, len(syn)).role not in (REJECTED,):
                return CheckResult("assertion", "forbidden by the assertion", 0.0,
                                   f"the answer recommends {term!r}, which the assertion forbids",
                                   quote(ctx.text, pos), fatal=True)
    return CheckResult("assertion", "forbidden by the assertion", 1.0,
                       f"does not recommend {', '.join(map(repr, terms[:4]))}")


def _affirmed(ctx: AnswerContext, assertion: str, terms: list[str]) -> CheckResult:
    warn = bool(_WARNS.search(assertion))
    found, missing = [], []
    for term in terms:
        hits = find_mentions(ctx, [term])
        ok = hits if warn else [(p, s) for p, s in hits if ctx.polarity(p, len(s)).role not in (REJECTED, ALTERNATIVE)]
        (found if ok else missing).append(term)
    if re.search(r"\bor\b|\beither\b|\bone of\b", assertion, re.I) and len(terms) > 1:  # any of them will do
        return CheckResult("assertion", "assertion as written", 1.0 if found else 0.0,
                           f"names {found[0]!r}" if found else f"names none of {', '.join(map(repr, terms[:4]))}")
    score = round(len(found) / len(terms), 3)
    expl = f"{len(found)}/{len(terms)} of the assertion's terms " + ("named" if warn else "affirmed") + \
        (f"; missing: {', '.join(missing[:4])}" if missing else "")
    return CheckResult("assertion", "assertion as written", score, expl)


def _word_share(ctx: AnswerContext, assertion: str) -> CheckResult:
    """An assertion without specific terms: the share of its distinctive words the answer uses
    (half of them count as covered; a judge reads such assertions better)."""
    words = [w for w in dict.fromkeys(normalise(w).strip(".") for w in _QWORD.findall(assertion))
             if w not in STOP_WORDS and w not in _VERBS]
    if not words:
        return CheckResult("assertion", "assertion as written", None, "skipped: no distinctive words (a judge can score it)")
    found = [w for w in words if find_mentions(ctx, [w]) or (len(w) >= 7 and re.search(r"(?<![a-z])" + re.escape(w[:6]), ctx.norm))]
    share = len(found) / len(words)
    return CheckResult("assertion", "assertion as written (words)", round(min(1.0, share * 2) if share >= 0.5 else share, 3),
                       f"uses {len(found)}/{len(words)} of the assertion's words"
                       + (f"; missing: {', '.join(w for w in words if w not in found)[:120]}" if len(found) < len(words) else ""))


_VERBS = frozenset("explains mentions describes states suggests includes provides provided gives gave lists shows "
                   "notes points recommends warns advises answer response correctly clearly properly agent guidance "
                   "relevant appropriate".split())


def check_relevance(ctx: AnswerContext, question: str) -> CheckResult:
    """Relevance by the question's own terms only (CUDA-graph words do not count here)."""
    words = {normalise(w).strip(".") for w in _QWORD.findall(question)} - STOP_WORDS
    shared = sorted(w for w in words if find_mentions(ctx, [w]))
    if len(shared) >= 2 or (shared and len(words) < 3):
        return CheckResult("relevance", "answers the question asked", 1.0, f"uses the question's terms ({', '.join(shared[:4])})")
    return CheckResult("relevance", "answers the question asked", 0.0, "shares almost none of the question's terms")
