"""Score one answer to one task of the bundled task set (evals/evals.json), for tests that judge a
single answer through the whole scorer."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from skill_tools.cli import refusal
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import AnswerRecord, TaskSet, load_tasks

EVALS = Path(__file__).resolve().parents[2] / "evals" / "evals.json"


@lru_cache(maxsize=1)
def bundled_tasks() -> TaskSet:
    return load_tasks(EVALS)


def score_one(task_id: str, answer: str) -> dict[str, Any]:
    """The report row of ``answer`` scored against task ``task_id``."""
    return score_all(bundled_tasks(), [AnswerRecord(task_id, "with_skill", "t", answer, 1)],
                     refusal=refusal)["answers"][0]


def checks_of(row: dict[str, Any], check_type: str) -> list[dict[str, Any]]:
    """The checks of one type in a scored answer, in order."""
    return [c for b in row["behaviors"] for c in b["checks"] if c["type"] == check_type]


def assert_claimed(task_id: str, answer: str) -> dict[str, Any]:
    """``answer`` fails its task, with a ``claim_absent`` check among the reasons."""
    row = score_one(task_id, answer)
    assert not row["passed"], row["fatal"]
    assert any(c["score"] == 0.0 for c in checks_of(row, "claim_absent")), row["fatal"]
    return row


def assert_passes(task_id: str, answer: str) -> dict[str, Any]:
    """``answer`` passes its task."""
    row = score_one(task_id, answer)
    assert row["passed"], row["fatal"]
    return row
