"""The task set in the formats other tools read: skill-creator's trigger set and the plain NVSkills list.

- **Trigger set** (Anthropic's skill-creator, github.com/anthropics/skills @9d2f1ae,
  ``skills/skill-creator/scripts/run_eval.py``: ``main`` reads ``--eval-set`` with ``json.loads``
  (l.272) and ``run_eval`` uses ``item["query"]`` and ``item["should_trigger"]`` of each item (l.184-237);
  ``run_loop.py`` ``split_eval_set`` (l.24-38) splits it by ``should_trigger``): a JSON list of
  ``{"query", "should_trigger"}``. ``run_eval`` keys its results by the query text, so two tasks
  with the same question would merge: they are refused here.
- **NVSkills list** (what NVIDIA's skills catalog ships as ``evals/evals.json``; 173 of its 381
  datasets @7149a88 have exactly ``id, question, expected_skill, expected_script, ground_truth,
  expected_behavior``, a further 19 add ``should_trigger``): those keys only, so this project's
  extensions (``rubric``, ``pain_points``, ``sources``, ``tags``) stay out.

Both read the task set through :func:`skill_tools.evaluation.tasks.load_tasks`, so every layout the
scorer accepts exports, and ``should_trigger`` follows ``expected_skill`` where it is not written.
"""

from __future__ import annotations

from typing import Any

from skill_tools.errors import InputError
from skill_tools.evaluation.tasks import TaskSet

NVSKILLS_KEYS = ("id", "question", "expected_skill", "expected_script", "ground_truth", "expected_behavior",
                 "should_trigger")


def trigger_set(taskset: TaskSet) -> list[dict[str, Any]]:
    """``[{"query", "should_trigger"}]`` in task order, positives and negatives alike."""
    out: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    for tid, task in taskset.tasks.items():
        query = task.data.get("question")
        if not isinstance(query, str) or not query.strip():
            raise InputError(taskset.source, f"task {tid!r} has no question text",
                             hint="a trigger query is the task's question")
        if query in seen:
            raise InputError(taskset.source, f"tasks {seen[query]!r} and {tid!r} ask the same question",
                             hint="skill-creator's run_eval keys results by query text; make the questions differ")
        seen[query] = tid
        out.append({"query": query, "should_trigger": task.should_trigger})
    return out


def nvskills_list(taskset: TaskSet) -> list[dict[str, Any]]:
    """The plain NVSkills task list: the catalog's keys, nothing else."""
    out = []
    for task in taskset.tasks.values():
        item = {k: task.data.get(k) for k in NVSKILLS_KEYS}
        item["expected_behavior"] = list(item["expected_behavior"] or [])
        out.append(item)
    return out
