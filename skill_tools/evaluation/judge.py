"""``--judge-cmd``: a pluggable judge for what rules cannot read, reported beside the deterministic
verdicts and never mixed into them.

Protocol ``skill-tools-judge/1``. The judge command is an argument list started directly (the
``--agent-cmd`` contract of :mod:`agent_cmd`: no shell, nothing from the task or the answer in
argv). Once per answer it receives one JSON object on standard input::

    {"protocol": "skill-tools-judge/1",
     "task": {"id", "question", "ground_truth", "expected_behavior": [str, ...]},
     "rubric": {...} | null,                       # the task's rubric as written
     "answer": str,                                # the answer text (untrusted)
     "deterministic": {"score", "passed", "scoring",
                       "behaviors": [{"index", "behavior", "score",
                                      "checks": [{"type", "name", "score", "explanation"}]}]}}

and writes one JSON object on standard output::

    {"verdicts": [{"assertion": 0, "verdict": "pass" | "fail" | "unsure", "reason": "..."}]}

``assertion`` indexes ``task.expected_behavior``. Each answer's report gains ``judge``: the verdicts,
the judge's pass share and, per assertion, whether it agrees with the deterministic behavior
score. A judge that exits non-zero, times out, prints something that is not the protocol, or names
an assertion that does not exist is reported on that answer (``judge.error``); the deterministic
score stands either way.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

PROTOCOL = "skill-tools-judge/1"
VERDICTS = ("pass", "fail", "unsure")
MAX_OUTPUT = 1_000_000
DEFAULT_TIMEOUT_S = 120.0


def request(task_data: dict[str, Any], answer: str, result: dict[str, Any]) -> dict[str, Any]:
    """The judge's input for one scored answer (``result``: ``AnswerScore.to_dict()``)."""
    return {
        "protocol": PROTOCOL,
        "task": {"id": task_data.get("id"), "question": task_data.get("question", ""),
                 "ground_truth": task_data.get("ground_truth", ""),
                 "expected_behavior": list(task_data.get("expected_behavior", []))},
        "rubric": task_data.get("rubric"),
        "answer": answer,
        "deterministic": {
            "score": result["score"], "passed": result["passed"], "scoring": result.get("scoring"),
            "behaviors": [{"index": b["index"], "behavior": b["behavior"], "score": b["score"],
                           "checks": [{k: c[k] for k in ("type", "name", "score", "explanation")} for c in b["checks"]]}
                          for b in result["behaviors"]]},
    }


def parse_reply(text: str, n_assertions: int) -> list[dict[str, Any]]:
    """The verdicts of a judge's reply; ValueError naming what is wrong with it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"judge output is not JSON ({exc.msg})") from None
    verdicts = data.get("verdicts") if isinstance(data, dict) else None
    if not isinstance(verdicts, list):
        raise ValueError('judge output has no "verdicts" list')
    out = []
    for v in verdicts:
        if not isinstance(v, dict) or not isinstance(v.get("assertion"), int) or isinstance(v.get("assertion"), bool):
            raise ValueError("each verdict needs an integer 'assertion'")
        if not 0 <= v["assertion"] < n_assertions:
            raise ValueError(f"verdict for assertion {v['assertion']}, which the task does not have")
        if v.get("verdict") not in VERDICTS:
            raise ValueError(f"verdict {str(v.get('verdict'))[:20]!r} is not one of {', '.join(VERDICTS)}")
        out.append({"assertion": v["assertion"], "verdict": v["verdict"], "reason": str(v.get("reason", ""))[:500]})
    return out


def judge_answer(argv: list[str], task_data: dict[str, Any], answer: str, result: dict[str, Any],
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
    """Ask the judge about one answer: ``{"verdicts", "pass_share", "agreement"}`` or ``{"error"}``."""
    payload = json.dumps(request(task_data, answer, result)).encode("utf-8")
    try:
        proc = subprocess.run(argv, shell=False, input=payload, capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"judge timed out after {timeout_s:g}s; the deterministic score stands"}
    except OSError as exc:
        return {"error": f"judge could not start: {exc}"}
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return {"error": f"judge exited {proc.returncode}" + (f": {err[-1][:200]}" if err else "")
                + "; the deterministic score stands"}
    try:
        verdicts = parse_reply(proc.stdout[:MAX_OUTPUT].decode("utf-8", errors="replace"),
                               len(task_data.get("expected_behavior", [])))
    except ValueError as exc:
        return {"error": f"{exc}; the deterministic score stands"}
    return judged_report(verdicts, result)


def judged_report(verdicts: list[dict[str, Any]], result: dict[str, Any]) -> dict[str, Any]:
    """What one answer's report shows of the judge: its verdicts, its overall ``verdict`` (``fail`` when
    any assertion fails, ``pass`` when some pass and none fail, else ``unsure``), its pass share and its
    agreement with the deterministic behavior scores."""
    judged = [v for v in verdicts if v["verdict"] != "unsure"]
    det = {b["index"]: b["score"] for b in result["behaviors"] if b["index"] is not None}
    agree = [(v["verdict"] == "pass") == (det[v["assertion"]] >= 1.0) for v in judged
             if det.get(v["assertion"]) is not None]
    verdict = "fail" if any(v["verdict"] == "fail" for v in judged) else "pass" if judged else "unsure"
    return {"verdicts": verdicts, "verdict": verdict,
            "pass_share": round(sum(v["verdict"] == "pass" for v in judged) / len(judged), 4) if judged else None,
            "agreement": round(sum(agree) / len(agree), 4) if agree else None}


def judge_all(argv: list[str], taskset: Any, results: list[Any], timeout_s: float = DEFAULT_TIMEOUT_S,
              jobs: int = 1) -> None:
    """Attach the judge's report to every scored answer (answers rejected before scoring are skipped);
    ``jobs`` judge calls run at once (a model judge spends its time waiting on the model)."""
    todo = [r for r in results if r.task is not None and not r.problem]

    def one(r: Any) -> None:
        r.judge = judge_answer(argv, r.task.data, r.record.answer, r.to_dict(), timeout_s)

    if jobs <= 1:
        for r in todo:
            one(r)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, todo))


def request_key(task_id: str, answer: str) -> str:
    """The key that ties a recorded verdict to the one answer it judged (task id and exact text)."""
    import hashlib

    return hashlib.sha256(json.dumps([task_id, answer]).encode("utf-8")).hexdigest()[:32]


def export_requests(results: list[Any], path: Any) -> int:
    """Write the judge request of every scored answer to ``path`` (JSONL ``{"key", "request"}``) for a
    judge that works in batches; its verdicts come back through ``evals judge-replay``. Returns the count."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for r in results:
            if r.task is None or r.problem:
                continue
            req = request(r.task.data, r.record.answer, r.to_dict())
            fh.write(json.dumps({"key": request_key(str(r.task.data.get("id")), r.record.answer),
                                 "request": req}, ensure_ascii=False) + "\n")
            n += 1
    return n


def summary(results: list[Any]) -> dict[str, Any] | None:
    judged = [r.judge for r in results if getattr(r, "judge", None) is not None]
    if not judged:
        return None
    ok = [j for j in judged if "error" not in j]
    agreement = [j["agreement"] for j in ok if j.get("agreement") is not None]
    pairs = [(r.passed, r.judge["verdict"]) for r in results
             if getattr(r, "judge", None) is not None and "error" not in r.judge]
    return {"protocol": PROTOCOL, "answers_judged": len(ok), "judge_failures": len(judged) - len(ok),
            "mean_agreement": round(sum(agreement) / len(agreement), 4) if agreement else None,
            "judge_fails_deterministic_pass": sum(bool(p) and v == "fail" for p, v in pairs),
            "judge_passes_deterministic_fail": sum(not p and v == "pass" for p, v in pairs),
            # two ways to read rules and judge together, each named, neither folded into the scores:
            # veto (the judge can only fail what the rules pass), decides (its verdict stands where it has one)
            "passed_veto": sum(bool(p) and v != "fail" for p, v in pairs),
            "passed_decides": sum(v == "pass" or (v == "unsure" and bool(p)) for p, v in pairs),
            "note": "judge verdicts are reported beside the deterministic scores; they never change them"}
