"""A behavior the task marks ``required`` (its outcome: the fix or the verification the user must do
next) fails the answer when every check of it scores 0, with the reason; half credit (prose in
another language, left to a judge) is no miss, and an answer that does it passes. Answers written
for these tests, through the whole scorer."""

from __future__ import annotations

import json

from one_answer import EVALS, score_one

CAUSE = ("Eager and graphed decode run different padded shapes: the graph replays the captured bucket while eager "
         "pads to its own round-up, so bf16 GEMMs reduce in a different order and greedy near-ties flip. ")
CHECK = ("To check it, pad eager to the same bucket so both run equal padded shapes and compare logits with a "
         "tolerance; a mismatch at equal shapes is a real bug.\n")
STALE = "Turn the decode graphs off until the stale KV block table is fixed upstream.\n"


def test_the_task_set_marks_outcome_behaviors_required():
    tasks = {t["id"]: t for t in json.loads(EVALS.read_text())}
    marked = [b["behavior"] for b in tasks["inference-parity-padded-shapes"]["rubric"]["behaviors"] if b.get("required")]
    assert marked == [1]


def test_a_missed_required_behavior_fails_with_its_reason():
    row = score_one("inference-parity-padded-shapes", CAUSE + STALE)
    assert not row["passed"]
    assert any(f.startswith("required ") and "required behavior missed" in f for f in row["fatal"]), row["fatal"]


def test_doing_it_passes():
    row = score_one("inference-parity-padded-shapes", CAUSE + CHECK)
    assert not any("required behavior missed" in f for f in row["fatal"]), row["fatal"]


def test_half_credit_or_nothing_applicable_is_no_miss():
    from skill_tools.evaluation.answer_context import CheckResult
    from skill_tools.evaluation.rubric import required_behavior

    half = CheckResult("concept", "x", 0.5, "half credit: prose not in English")
    skipped = CheckResult("config", "y", None, "not applicable")
    missed = CheckResult("concept", "x", 0.0, "does not mention x")
    assert required_behavior("b", [half, missed]) == []
    assert required_behavior("b", [skipped]) == []
    got = required_behavior("b", [missed, skipped])
    assert len(got) == 1 and got[0].fatal and got[0].score == 0.0
