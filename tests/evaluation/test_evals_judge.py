"""--judge-cmd: a scripted judge's verdicts are reported beside the deterministic scores and never
change them; a judge that fails, times out or breaks the protocol is reported per answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from skill_tools.cli import main
from skill_tools.evaluation.judge import PROTOCOL, parse_reply
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import load_answers, load_tasks

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"
JUDGE = [sys.executable, str(REPO / "tests" / "fixtures" / "judges" / "scripted_judge.py")]
ANSWER = ("Use TE scoped graphs: `model.cuda_graph_impl=transformer_engine`, `model.cuda_graph_modules=[attn]`, "
          "`model.use_te_rng_tracker=True`, `rng.te_rng_tracker=True`. Keep static shapes; profile eager first "
          "and compare replay iterations after capture.")


@pytest.fixture
def answers(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps({"id": "dense-te-scoped-bringup", "answer": ANSWER, "condition": "with_skill"}) + "\n")
    return load_answers(p)


def test_verdicts_are_reported_beside_and_never_mixed(answers, monkeypatch):
    tasks = load_tasks(EVALS)
    plain = score_all(tasks, answers)["answers"][0]
    monkeypatch.setenv("JUDGE_SCRIPT", json.dumps({"0": "transformer_engine", "2": "no-such-word"}))
    judged = score_all(tasks, answers, judge_argv=JUDGE)
    a = judged["answers"][0]
    assert a["score"] == plain["score"] and a["behaviors"] == plain["behaviors"]
    verdicts = {v["assertion"]: v["verdict"] for v in a["judge"]["verdicts"]}
    assert verdicts == {0: "pass", 1: "unsure", 2: "fail", 3: "unsure", 4: "unsure"}
    assert a["judge"]["pass_share"] == 0.5 and judged["judge"]["answers_judged"] == 1


@pytest.mark.parametrize("mode,expect", [("fail", "exited 3"), ("garbage", "not JSON"), ("bad-index", "assertion 99")])
def test_a_failing_judge_is_reported_per_answer(answers, monkeypatch, mode, expect):
    monkeypatch.setenv("JUDGE_MODE", mode)
    monkeypatch.setenv("JUDGE_SCRIPT", json.dumps({"0": "x"}))
    report = score_all(load_tasks(EVALS), answers, judge_argv=JUDGE)
    a = report["answers"][0]
    assert expect in a["judge"]["error"] and "deterministic score stands" in a["judge"]["error"]
    assert a["score"] > 0 and report["judge"]["judge_failures"] == 1


def test_a_judge_that_never_answers_times_out(answers, monkeypatch):
    monkeypatch.setenv("JUDGE_MODE", "sleep")
    report = score_all(load_tasks(EVALS), answers, judge_argv=JUDGE, judge_timeout_s=0.5)
    assert "timed out" in report["answers"][0]["judge"]["error"]


def test_protocol_replies_are_checked():
    assert parse_reply('{"verdicts": [{"assertion": 0, "verdict": "pass"}]}', 1)[0]["verdict"] == "pass"
    for bad in ('[]', '{"verdicts": [{"assertion": "0", "verdict": "pass"}]}',
                '{"verdicts": [{"assertion": 0, "verdict": "maybe"}]}', '{"verdicts": [{"assertion": true, "verdict": "pass"}]}'):
        with pytest.raises(ValueError):
            parse_reply(bad, 1)
    assert PROTOCOL == "skill-tools-judge/1"


def test_cli_judge_cmd_follows_the_agent_cmd_contract(tmp_path, capsys, monkeypatch):
    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps({"id": "dense-te-scoped-bringup", "answer": ANSWER}) + "\n")
    assert main(["evals", "score", "--answers", str(p), "--evals", str(EVALS), "--judge-cmd", "sh -c 'cat'"]) == 2
    assert "--judge-cmd" in capsys.readouterr().err
    monkeypatch.setenv("JUDGE_SCRIPT", json.dumps({"0": "attn"}))
    rc = main(["evals", "score", "--answers", str(p), "--evals", str(EVALS), "--judge-cmd", " ".join(JUDGE)])
    assert rc in (0, 1) and "judge (skill-tools-judge/1): 1 answers judged" in capsys.readouterr().out
