"""`skill-tools evals export`: skill-creator's trigger set and the plain NVSkills list.

The trigger set is read the way Anthropic's skill-creator reads ``--eval-set``
(github.com/anthropics/skills @9d2f1ae, skills/skill-creator/scripts/run_eval.py: ``json.loads``
of the file, l.272; ``item["query"]`` / ``item["should_trigger"]`` per item and results keyed by
query, l.184-237; run_loop.py ``split_eval_set`` stratifies by ``should_trigger``, l.24-38).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.evaluation.export import NVSKILLS_KEYS
from skill_tools.evaluation.tasks import load_tasks

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"


def export(capsys, *args: str) -> list:
    assert main(["evals", "export", *args]) == 0
    return json.loads(capsys.readouterr().out)


def read_like_skill_creator(text: str) -> dict[str, bool]:
    """What run_eval.py takes from each item; it keys results by query, so duplicates would merge."""
    eval_set = json.loads(text)
    assert isinstance(eval_set, list)
    out: dict[str, bool] = {}
    for item in eval_set:
        query, should_trigger = item["query"], item["should_trigger"]
        assert isinstance(query, str) and query.strip() and isinstance(should_trigger, bool)
        assert query not in out, f"duplicate query would merge in run_eval: {query[:60]}"
        out[query] = should_trigger
    return out


def test_trigger_set_of_the_shipped_task_set(capsys, tmp_path):
    out = tmp_path / "trigger.json"
    assert main(["evals", "export", "--trigger-set", "--evals", str(EVALS), "--out", str(out)]) == 0
    assert "41 tasks" not in capsys.readouterr().out  # the summary goes to stderr, the data to the file
    got = read_like_skill_creator(out.read_text(encoding="utf-8"))
    tasks = load_tasks(EVALS).tasks.values()
    assert got == {t.data["question"]: t.should_trigger for t in tasks}
    assert all(set(item) == {"query", "should_trigger"} for item in json.loads(out.read_text()))
    positives = sum(got.values())
    assert positives and len(got) - positives, "split_eval_set needs should-trigger and should-not-trigger queries"


def test_layouts_and_derived_should_trigger(capsys, tmp_path):
    skill_evals = {"skill_name": "demo", "evals": [
        {"id": 1, "prompt": "enable CUDA graphs in Megatron Bridge", "expected_output": "x", "assertions": []},
        {"id": 2, "prompt": "fine-tune with HF Trainer", "expected_skill": None, "expected_output": "y"}]}
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(skill_evals))
    assert export(capsys, "--trigger-set", "--evals", str(path)) == [
        {"query": "enable CUDA graphs in Megatron Bridge", "should_trigger": True},
        {"query": "fine-tune with HF Trainer", "should_trigger": False}]
    plain = export(capsys, "--nvskills", "--evals", str(path))
    assert [t["question"] for t in plain] == ["enable CUDA graphs in Megatron Bridge", "fine-tune with HF Trainer"]
    assert [t["expected_skill"] for t in plain] == ["demo", None]


def test_nvskills_list_keeps_the_catalog_keys_only(capsys, tmp_path):
    plain = export(capsys, "--nvskills", "--evals", str(EVALS))
    assert all(tuple(t) == NVSKILLS_KEYS for t in plain)
    assert not any("rubric" in t or "tags" in t for t in plain)
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(plain))
    again, shipped = load_tasks(path).tasks, load_tasks(EVALS).tasks
    assert list(again) == list(shipped)
    assert all(again[i].should_trigger == shipped[i].should_trigger for i in shipped)


def test_duplicate_questions_and_a_missing_format_are_bad_input(capsys, tmp_path):
    path = tmp_path / "evals.json"
    task = {"question": "same", "expected_skill": None, "expected_script": None, "ground_truth": "g",
            "expected_behavior": ["b"]}
    path.write_text(json.dumps([{"id": "a", **task}, {"id": "b", **task}]))
    assert main(["evals", "export", "--trigger-set", "--evals", str(path)]) == 2
    assert "'a' and 'b' ask the same question" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["evals", "export", "--evals", str(path)])
    assert exc.value.code == 2
