"""A batch judge: `evals score --judge-export` writes the requests, the judge records verdicts keyed
by task and exact answer text, and `evals judge-replay` serves them back as a --judge-cmd. Judge calls
can run several at once; each answer's report carries the judge's overall verdict."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.evaluation import judge_replay
from skill_tools.evaluation.judge import request_key
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import load_answers, load_tasks

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"
JUDGE = [sys.executable, str(REPO / "tests" / "fixtures" / "judges" / "scripted_judge.py")]
TE = ("Use TE scoped graphs: `model.cuda_graph_impl=transformer_engine`, `model.cuda_graph_modules=[attn]`, "
      "`model.use_te_rng_tracker=True`, `rng.te_rng_tracker=True`.")
NEG = "Set gradient_checkpointing=True and bf16=True in TrainingArguments."


def _answers(tmp_path: Path) -> Path:
    p = tmp_path / "a.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in (
        {"id": "dense-te-scoped-bringup", "answer": TE, "condition": "with_skill", "agent": "x/one"},
        {"id": "neg-hf-gradient-checkpointing", "answer": NEG, "condition": "with_skill", "agent": "x/two"})))
    return p


def _replay(monkeypatch, verdicts: Path, request: dict) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(request)))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    rc = judge_replay.main([str(verdicts)])
    return rc, out.getvalue(), err.getvalue()


def test_export_then_replay_attaches_each_verdict_to_the_answer_it_judged(tmp_path, monkeypatch):
    answers = _answers(tmp_path)
    exported = tmp_path / "requests.jsonl"
    report = score_all(load_tasks(EVALS), load_answers(answers), judge_export=exported)
    rows = [json.loads(line) for line in exported.read_text().splitlines()]
    assert report["judge_requests_exported"] == 2 and len(rows) == 2
    assert rows[0]["key"] == request_key("dense-te-scoped-bringup", TE)
    assert rows[1]["request"]["answer"] == NEG and rows[1]["request"]["deterministic"]["behaviors"]
    # the batch judge fails the first answer's assertion 1 and passes everything of the second
    verdicts = tmp_path / "verdicts.jsonl"
    n0 = len(rows[0]["request"]["task"]["expected_behavior"])
    n1 = len(rows[1]["request"]["task"]["expected_behavior"])
    verdicts.write_text(
        json.dumps({"key": rows[0]["key"], "verdicts": [{"assertion": i, "verdict": "fail" if i == 1 else "pass"}
                                                        for i in range(n0)]}) + "\n"
        + json.dumps({"key": rows[1]["key"], "verdicts": [{"assertion": i, "verdict": "pass"} for i in range(n1)]}) + "\n")
    rc, out, _ = _replay(monkeypatch, verdicts, rows[1]["request"])
    assert rc == 0 and json.loads(out)["verdicts"][0]["verdict"] == "pass"
    # a changed answer text has no verdict: exit 2, and the reason names the task
    rc, out, err = _replay(monkeypatch, verdicts, {**rows[1]["request"], "answer": NEG + " "})
    assert rc == 2 and out == "" and "no recorded verdict for task neg-hf-gradient-checkpointing" in err


def test_replayed_verdicts_reach_the_report_beside_the_score(tmp_path, capsys):
    answers = _answers(tmp_path)
    exported = tmp_path / "requests.jsonl"
    assert main(["evals", "score", "--answers", str(answers), "--evals", str(EVALS),
                 "--judge-export", str(exported)]) in (0, 1)
    assert "judge requests written to" in capsys.readouterr().out
    first = json.loads(exported.read_text().splitlines()[0])
    n = len(first["request"]["task"]["expected_behavior"])
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(json.dumps({"key": first["key"], "verdicts": [
        {"assertion": i, "verdict": "fail" if i == 0 else "unsure", "reason": "r"} for i in range(n)]}) + "\n")
    out = tmp_path / "report.json"
    skill_tools = Path(sys.executable).parent / "skill-tools"
    if not skill_tools.is_file():
        pytest.skip("the skill-tools entry point is not installed beside this interpreter")
    rc = main(["evals", "score", "--answers", str(answers), "--evals", str(EVALS), "--json-out", str(out),
               "--judge-cmd", f"{skill_tools} evals judge-replay {verdicts}", "--judge-jobs", "2"])
    assert rc in (0, 1)
    report = json.loads(out.read_text())
    one, two = report["answers"]
    assert one["judge"]["verdict"] == "fail" and one["score"] > 0  # beside, never mixed into the score
    assert "no recorded verdict" in two["judge"]["error"] and "deterministic score stands" in two["judge"]["error"]
    assert report["judge"]["answers_judged"] == 1 and report["judge"]["judge_failures"] == 1


@pytest.mark.parametrize("text,why", [("not json\n", "not JSON"), ('{"key": 1, "verdicts": []}\n', '"key"'),
                                      ('{"key": "k"}\n', '"verdicts"')])
def test_a_bad_verdicts_file_is_refused_with_its_line(tmp_path, monkeypatch, text, why):
    bad = tmp_path / "v.jsonl"
    bad.write_text('\n' + text)
    rc, out, err = _replay(monkeypatch, bad, {"protocol": "skill-tools-judge/1", "task": {"id": "t"}, "answer": ""})
    assert rc == 2 and out == "" and f"v.jsonl:2" in err and why in err


def test_a_request_of_another_protocol_is_refused(tmp_path, monkeypatch):
    v = tmp_path / "v.jsonl"
    v.write_text("")
    rc, _, err = _replay(monkeypatch, v, {"protocol": "other/2"})
    assert rc == 2 and "not protocol skill-tools-judge/1" in err


def test_parallel_judge_calls_give_the_serial_verdicts(tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_SCRIPT", json.dumps({"0": "True", "1": "rng"}))
    tasks, recs = load_tasks(EVALS), load_answers(_answers(tmp_path))
    serial = score_all(tasks, recs, judge_argv=JUDGE)
    parallel = score_all(tasks, recs, judge_argv=JUDGE, judge_jobs=2)
    assert [a["judge"] for a in serial["answers"]] == [a["judge"] for a in parallel["answers"]]
    first, second = serial["answers"]
    assert first["judge"]["verdict"] == "pass"  # both words in the TE answer
    assert second["judge"]["verdict"] == "fail"  # the negative task's answer has no "rng"
    summary = serial["judge"]
    assert summary["judge_fails_deterministic_pass"] == int(second["passed"])
    assert summary["judge_passes_deterministic_fail"] == int(not first["passed"])
    assert summary["passed_veto"] == int(bool(first["passed"]))  # the second fails with the judge
    assert summary["passed_decides"] == 1  # the first, which the judge passes


def test_judge_jobs_below_one_is_refused(tmp_path, capsys):
    assert main(["evals", "score", "--answers", str(_answers(tmp_path)), "--evals", str(EVALS),
                 "--judge-jobs", "0"]) == 2
    assert "--judge-jobs" in capsys.readouterr().err
