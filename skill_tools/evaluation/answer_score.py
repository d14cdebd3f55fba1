"""The score of one answer: per behavior (the mean of its checks), then weighted over behaviors,
capped by fatal findings, cut for an off-topic answer; with everything the report shows of it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from skill_tools.evaluation.extract import Extraction
from skill_tools.evaluation.rubric import CheckResult
from skill_tools.evaluation.setup import Setup
from skill_tools.evaluation.tasks import AnswerRecord, Task

DEFAULT_THRESHOLD = 0.7
#: A fatal finding caps the answer this far below the pass threshold (ranking among such answers is kept).
FATAL_MARGIN = 0.15
#: Weight of the derived "answers the question asked" behavior of a positive task; an answer that
#: fails it keeps only OFF_TOPIC_FACTOR of what incidental mentions earned.
ON_TOPIC_WEIGHT = 0.5
OFF_TOPIC_FACTOR = 0.25


@dataclass
class BehaviorScore:
    index: int | None  # index into expected_behavior; None for derived behaviors
    text: str
    weight: float
    checks: list[CheckResult]
    note: str = ""

    @property
    def score(self) -> float | None:
        scored = [c.score for c in self.checks if c.score is not None]
        return round(statistics.fmean(scored), 4) if scored else None

    @property
    def passed(self) -> bool | None:
        s = self.score
        return None if s is None else s >= 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "behavior": self.text, "weight": self.weight, "score": self.score,
                "passed": self.passed, "note": self.note, "checks": [c.to_dict() for c in self.checks]}


@dataclass
class AnswerScore:
    record: AnswerRecord
    task: Task | None
    behaviors: list[BehaviorScore] = field(default_factory=list)
    extraction: Extraction | None = None
    era: str | None = None
    validation: dict[str, Any] | None = None
    execution: dict[str, Any] | None = None
    threshold: float = DEFAULT_THRESHOLD
    problem: str = ""
    setup: Setup | None = None
    outcome: Any = None  # outcome.Outcome the task declares, or None
    confidence: dict[str, str] | None = None  # how surely the config was read (outcome.extraction_confidence)
    scoring: str = "cuda-graphs"  # or "generic": another skill's task, scored on its assertions as written
    judge: dict[str, Any] | None = None  # the --judge-cmd verdicts, reported beside the deterministic score

    @property
    def raw_score(self) -> float:
        num = den = 0.0
        for b in self.behaviors:
            if b.score is not None:
                num += b.weight * b.score
                den += b.weight
        return round(num / den, 4) if den else 0.0

    @property
    def off_topic(self) -> bool:
        return any(c.type == "on_topic" and c.score == 0.0 for b in self.behaviors for c in b.checks)

    @property
    def fatal(self) -> list[CheckResult]:
        return [c for b in self.behaviors for c in b.checks if c.fatal and c.score is not None and c.score < 1.0]

    @property
    def score(self) -> float:
        if self.problem:
            return 0.0
        raw = self.raw_score
        if self.off_topic:
            raw = round(raw * OFF_TOPIC_FACTOR, 4)
        if self.fatal:
            return round(min(raw, max(0.0, self.threshold - FATAL_MARGIN) * (0.5 + 0.5 * raw)), 4)
        return raw

    @property
    def passed(self) -> bool:
        return self.score >= self.threshold

    @property
    def findings(self) -> list[dict[str, Any]]:
        out = [f.to_dict() for f in self.record.findings]
        if self.extraction is not None:
            out += [f.to_dict() for f in self.extraction.findings]
        return out

    @property
    def unsafe(self) -> bool:
        return self.record.rejected or bool(self.extraction and self.extraction.unsafe)

    def to_dict(self) -> dict[str, Any]:
        ex = self.extraction
        return {
            "id": self.record.id, "condition": self.record.condition, "agent": self.record.agent,
            "line": self.record.line, "score": self.score, "passed": self.passed, "threshold": self.threshold,
            "should_trigger": self.task.should_trigger if self.task else None,
            "problem": self.problem or None, "unsafe": self.unsafe, "findings": self.findings,
            "raw_score": self.raw_score,
            "fatal": [f"{c.type} {c.name}: {c.explanation}" for c in self.fatal],
            "setup": self.setup.to_dict() if self.setup else None,
            "scoring": self.scoring,
            "outcome": self.outcome.to_dict() if self.outcome is not None else None,
            "extraction_confidence": self.confidence,
            **({"judge": self.judge} if self.judge is not None else {}),
            "era": self.era, "validation": self.validation, "execution": self.execution,
            "config": ex.config.to_dict() if ex else None,
            "blocks": [b.to_dict() for b in ex.blocks] if ex else [],
            "behaviors": [b.to_dict() for b in self.behaviors],
        }


def unreadable_answer(record: AnswerRecord) -> str:
    """Why an answer cannot be read ('' when it can): no text and no changed files, or text that is
    mostly control characters (a binary file pasted as an answer)."""
    if record.files or record.deleted:
        return ""
    text = record.answer if isinstance(record.answer, str) else ""
    if not text.strip():
        why = [f.message for f in record.findings if f.kind in ("parse", "limit") and "condition" not in f.message]
        return why[0] if why else "the answer is empty"
    sample = text[:4096]
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\n\r\t"))
    if bad > len(sample) * 0.3:
        return f"not text ({bad} of its first {len(sample)} characters are control or undecodable bytes)"
    return ""
