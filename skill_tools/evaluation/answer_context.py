"""What a check sees of one answer (:class:`AnswerContext`) and what it returns (:class:`CheckResult`),
with the text helpers every check shares: normalised text (case, ``-``/``_`` folded, positions
kept), synonym mentions and quoting evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.extract import Extraction
from skill_tools.evaluation.polarity import LinePolarity, Polarity

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
    restated: frozenset[str] = frozenset()  # keys it writes with the value the task's question states
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
    def prose_language(self) -> str:
        """``en`` when the answer's prose is English (what concept checks read), else ``other``."""
        return prose_language(self.text)

    @property
    def norm(self) -> str:
        if self._norm is None:
            self._norm = normalise(self.text)
        return self._norm


def normalise(text: str) -> str:
    """Lower-case and fold ``-``/``_`` to spaces, keeping every character position."""
    return text.lower().translate(_FOLD)


_FOLD = str.maketrans({"-": " ", "_": " "})


#: A prohibition is said many ways: "cannot combine" is also "must never be combined", "can't be
#: combined", "should not combine". A synonym "<negation> <verb>" matches every such form.
_NEGATIONS = r"(?:cannot|can ?not|can't|must not|mustn't|must never|never|do not|don't|should not|should never|" \
             r"shouldn't|may not|may never)"
_NEGATED_VERB = re.compile(r"^(?:cannot|can't|can not|do not|don't|must not|never|should not)\s+([a-z]{3,})$")


@lru_cache(maxsize=4096)
def _synonym_pattern(synonym: str) -> re.Pattern[str]:
    words = normalise(synonym).split()
    neg = _NEGATED_VERB.match(" ".join(words))
    if neg:
        stem = neg.group(1)[:-1] if neg.group(1).endswith("e") else neg.group(1)
        return re.compile(r"(?<![a-z0-9])" + _NEGATIONS + r"\s+(?:(?:ever|be|been)\s+){0,2}" + re.escape(stem) + r"[a-z]*")
    body = r"\s+[`*]{0,2}".join(re.escape(w) for w in words)  # "without `NCCL_GRAPH_REGISTER`": code marks between words
    tail = r"(?![a-z0-9])" if len(synonym) <= 3 and synonym[-1:].isalnum() else ""
    return re.compile(r"(?<![a-z0-9])" + body + tail)


def _matches(ctx: AnswerContext, synonyms: list[str]) -> Iterator[tuple[re.Match[str], str]]:
    for syn in synonyms:
        for m in _synonym_pattern(syn).finditer(ctx.norm):
            yield m, syn


def find_mentions(ctx: AnswerContext, synonyms: list[str]) -> list[tuple[int, str]]:
    """(position, synonym) of every mention, in text order."""
    return sorted((m.start(), syn) for m, syn in _matches(ctx, synonyms))


def mention_spans(ctx: AnswerContext, synonyms: list[str]) -> list[tuple[int, str]]:
    """(position, matched text) of every mention, in text order: the text, not the synonym, so that
    its length spans what was matched ("without `NCCL_GRAPH_REGISTER" for "without NCCL_GRAPH_REGISTER")."""
    return sorted((m.start(), m.group()) for m, _ in _matches(ctx, synonyms))


def quote(text: str, pos: int, width: int = _CONTEXT) -> str:
    start = max(0, pos - width // 2)
    snippet = " ".join(text[start:pos + width].split())
    return ("…" if start else "") + snippet + ("…" if pos + width < len(text) else "")


#: Words that carry no subject: never a required term, never evidence of being on topic.
STOP_WORDS = frozenset("""about above after again against before being below between could does doing during
each either every from further have having into itself more most must only other over same should
since some such than that their them then there these they this those through under until very what
when where which while whom will with would your yours answer mention mentions explain explains
recommend recommends tell tells user users state states instead rather first also using used use uses
given keep keeps make makes whether without""".split())


_FENCED = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_BULLET = re.compile(r"\s*(?:[-*+•]|\d+[.)])\s+\S")
_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÿ]{2,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
#: English function words: any English prose of a few sentences is full of them.
_ENGLISH = frozenset("""the a an and or of to in on for with is are be it this that not you your if by from as
at so but when then can do does don't isn't it's we i there these those which will would should must""".split())


@lru_cache(maxsize=256)
def prose_language(text: str) -> str:
    """``other`` when the prose outside code is mostly CJK, or has at least 25 Latin words of which
    fewer than one in ten is an English function word (Spanish, French, German, Italian prose);
    ``en`` otherwise, also for answers with too little prose to tell."""
    from skill_tools.evaluation.unfenced import code_like

    prose = "\n".join(ln for ln in _CODE.sub(" ", _FENCED.sub(" ", text)).split("\n")
                      if _BULLET.match(ln) or not code_like(ln))  # unfenced code is not prose; a bullet is
    cjk = len(_CJK.findall(prose))
    words = [w.lower() for w in _LATIN_WORD.findall(prose)]
    if cjk >= 20 and cjk > len(words):
        return "other"
    if len(words) >= 25 and sum(w in _ENGLISH for w in words) < 0.1 * len(words):
        return "other"
    return "en"
