"""`evals judge-via -- AGENT`: the judge protocol through an agent CLI. The agent gets the packaged
judge instruction and the request on stdin (never in argv), and its verdicts are read from the reply
in the shapes agent CLIs print; a reply without verdicts, or a failing agent, is an error on that
answer while the deterministic score stands. A scripted stand-in plays the agent; no network."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from skill_tools.evaluation import judge_via
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import AnswerRecord, load_tasks

REPO = Path(__file__).resolve().parents[2]
FAKE = [sys.executable, str(REPO / "tests" / "fixtures" / "judges" / "fake_agent_cli.py")]
TASKS = load_tasks(REPO / "evals" / "evals.json")
TE = ("Use TE scoped graphs: `model.cuda_graph_impl=transformer_engine`, `model.cuda_graph_modules=[attn]`, "
      "`model.use_te_rng_tracker=True`, `rng.te_rng_tracker=True`.")


def _request(answer: str = TE) -> dict:
    from skill_tools.evaluation.judge import request

    rec = AnswerRecord(id="dense-te-scoped-bringup", condition="with_skill", answer=answer, line=1, agent="t")
    from skill_tools.evaluation.score import Scorer

    result = Scorer(TASKS).score(rec)
    return request(result.task.data, answer, result.to_dict())


def _run(monkeypatch, req: dict, mode: str, argv: list[str] | None = None) -> tuple[int, str, str]:
    monkeypatch.setenv("FAKE_AGENT_MODE", mode)
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(req)))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    rc = judge_via.main(argv or FAKE, timeout_s=60)
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("mode", ["bare", "fenced", "envelope"])
def test_verdicts_are_read_from_the_shapes_agent_clis_print(monkeypatch, mode):
    rc, out, err = _run(monkeypatch, _request(), mode)
    assert rc == 0, err
    verdicts = json.loads(out)["verdicts"]
    assert [v["verdict"] for v in verdicts] == ["pass"] * len(_request()["task"]["expected_behavior"])


def test_the_agent_gets_the_instruction_and_the_request_on_stdin(monkeypatch, tmp_path):
    seen = tmp_path / "prompt.txt"
    monkeypatch.setenv("FAKE_AGENT_OUT", str(seen))
    rc, _, _ = _run(monkeypatch, _request(TE + " WRONG"), "echo")
    assert rc == 0
    text = seen.read_text()
    assert text.startswith("# Judge instructions (protocol `skill-tools-judge/1`)")
    assert "## The request" in text and "WRONG" in text  # the answer travels in the prompt, not in argv


@pytest.mark.parametrize("mode,why", [("prose", "no JSON object with a verdicts list"), ("fail", "exited 4")])
def test_no_verdicts_is_exit_2_with_the_reason(monkeypatch, mode, why):
    rc, out, err = _run(monkeypatch, _request(), mode)
    assert rc == 2 and out == "" and why in err


def test_a_missing_agent_and_a_bad_request_are_refused(monkeypatch):
    rc, _, err = _run(monkeypatch, _request(), "bare", ["no-such-agent-program-xyz"])
    assert rc == 2 and "could not start" in err
    rc, _, err = _run(monkeypatch, {"protocol": "other/1"}, "bare")
    assert rc == 2 and "not protocol skill-tools-judge/1" in err


def test_a_verdict_for_an_assertion_the_task_lacks_is_refused():
    n = 2
    bad = json.dumps({"verdicts": [{"assertion": 5, "verdict": "pass"}]})
    with pytest.raises(ValueError, match="assertion 5"):
        judge_via.verdicts_in("Sure.\n```json\n" + bad + "\n```", n)


def test_through_judge_cmd_a_wrong_answer_is_failed_beside_its_score(monkeypatch):
    skill_tools = Path(sys.executable).parent / "skill-tools"
    if not skill_tools.is_file():
        pytest.skip("the skill-tools entry point is not installed beside this interpreter")
    monkeypatch.setenv("FAKE_AGENT_MODE", "fenced")
    recs = [AnswerRecord(id="dense-te-scoped-bringup", condition="with_skill", answer=a, line=i + 1, agent=f"a{i}")
            for i, a in enumerate([TE, TE + " WRONG"])]
    report = score_all(TASKS, recs, judge_argv=[str(skill_tools), "evals", "judge-via", "--", *FAKE], judge_jobs=2)
    good, bad = report["answers"]
    assert good["judge"]["verdict"] == "pass" and bad["judge"]["verdict"] == "fail"
    assert bad["score"] == good["score"]  # the judge never changes the deterministic score
    assert report["judge"]["passed_decides"] == 1
