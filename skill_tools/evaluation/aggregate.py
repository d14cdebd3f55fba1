"""Aggregate scored answers: per task and condition, the uplift of with_skill over without_skill,
per-behavior pass rates and the gate; the returned dict is the JSON report.
"""

from __future__ import annotations

import statistics
from typing import Any

from skill_tools.evaluation.answer_score import AnswerScore
from skill_tools.evaluation.tasks import CONDITIONS, TaskSet

def aggregate(taskset: TaskSet, results: list[AnswerScore], threshold: float) -> dict[str, Any]:
    conditions = sorted({r.record.condition for r in results}, key=lambda c: (c not in CONDITIONS, c))
    per_task: list[dict[str, Any]] = []
    for tid, task in taskset.tasks.items():
        row: dict[str, Any] = {"id": tid, "should_trigger": task.should_trigger,
                               "pain_points": task.data.get("pain_points", []), "conditions": {}}
        for cond in conditions:
            mine = [r for r in results if r.record.id == tid and r.record.condition == cond]
            if mine:
                row["conditions"][cond] = {
                    "n": len(mine), "score": round(statistics.fmean(r.score for r in mine), 4),
                    "passed": sum(r.passed for r in mine), "unsafe": sum(r.unsafe for r in mine),
                    "execution": _exec_summary([r.execution for r in mine]),
                }
        w, wo = row["conditions"].get("with_skill"), row["conditions"].get("without_skill")
        row["uplift"] = round(w["score"] - wo["score"], 4) if w and wo else None
        per_task.append(row)

    per_condition: dict[str, Any] = {}
    for cond in conditions:
        mine = [r for r in results if r.record.condition == cond and r.task is not None]
        if not mine:
            continue
        pos = [r for r in mine if r.task.should_trigger]
        neg = [r for r in mine if not r.task.should_trigger]
        answered = {r.record.id for r in mine}
        per_condition[cond] = {
            "answers": len(mine), "mean_score": round(statistics.fmean(r.score for r in mine), 4),
            "pass_rate": round(sum(r.passed for r in mine) / len(mine), 4),
            "positive_mean": round(statistics.fmean(r.score for r in pos), 4) if pos else None,
            "negative_mean": round(statistics.fmean(r.score for r in neg), 4) if neg else None,
            "unsafe_answers": sum(r.unsafe for r in mine),
            "generic_answers": sum(r.scoring == "generic" for r in mine),
            "tasks_without_answer": sorted(set(taskset.tasks) - answered),
        }
    uplifts = [t["uplift"] for t in per_task if t["uplift"] is not None]
    gate_cond = "with_skill" if "with_skill" in per_condition else (next(iter(per_condition), None))
    gate_score = per_condition[gate_cond]["mean_score"] if gate_cond else 0.0
    unknown = [r for r in results if r.task is None]
    return {
        "evals": taskset.source,
        "threshold": threshold,
        "gate": {"condition": gate_cond, "mean_score": gate_score, "passed": bool(gate_cond) and gate_score >= threshold},
        "uplift": {"tasks_compared": len(uplifts),
                   "mean": round(statistics.fmean(uplifts), 4) if uplifts else None,
                   "improved": sum(u > 0 for u in uplifts), "regressed": sum(u < 0 for u in uplifts)},
        "conditions": per_condition,
        "tasks": per_task,
        "behaviors": _behavior_rates(results),
        "rejected_answers": [{"id": r.record.id, "line": r.record.line, "problem": r.problem} for r in unknown or []
                             if r.problem],
        "answers": [r.to_dict() for r in results],
    }


def _exec_summary(executions: list[dict[str, Any] | None]) -> str:
    runs = [e for e in executions if e]
    if not runs:
        return "not requested"
    skipped = [e["skipped"] for e in runs if "skipped" in e]
    done = [e for e in runs if "skipped" not in e]
    if not done:
        return f"skipped: {skipped[0]}"
    ok = sum(bool(e.get("captured") and e.get("replayed") and e.get("loss_ok")) for e in done)
    return f"{ok}/{len(done)} ok"


def _behavior_rates(results: list[AnswerScore]) -> list[dict[str, Any]]:
    """Pass rate of each (task, behavior) per condition."""
    table: dict[tuple[str, str], dict[str, list[float]]] = {}
    for r in results:
        if r.task is None:
            continue
        for b in r.behaviors:
            if b.score is None:
                continue
            table.setdefault((r.record.id, b.text), {}).setdefault(r.record.condition, []).append(b.score)
    return [{"id": tid, "behavior": text, "scores": {c: round(statistics.fmean(v), 4) for c, v in conds.items()}}
            for (tid, text), conds in table.items()]
