"""How well the scorer judges a labelled held-out split of answers (evals/heldout-2026-12-03).

A split folder holds ``labels.jsonl`` (one row per answer: id, task, skill, style, label
correct|wrong, reason, citation) and ``answers/answers.jsonl`` (this skill's tasks, scored against
evals/evals.json) plus ``answers/foreign_answers.jsonl`` (other skills' tasks, scored against the
task entries of ``../foreign_tasks.json``, each skill's tasks as that skill's own task list).

Reports, at the pass threshold: false passes (a wrong answer that passes), false fails (a correct
answer that fails), inverted pairs (per task, a correct answer scored below a wrong one; ties are
counted apart), mean score of correct and of wrong answers, and the same per style. Targets
(issue 28, scaled to the split): false passes <= 3 in 45 wrong, false fails <= 3 in 45 correct,
<= 5 % inverted pairs.

With ``--judge-verdicts FILE`` (verdicts a judge recorded for this split's exported requests, the
``evals judge-replay`` format) it also reports, beside the deterministic numbers, false passes and
false fails when the judge's overall verdict vetoes a deterministic pass (``veto``) and when it
decides wherever it is not unsure (``judge``).

Usage (from the repository root; PYTHONPATH decides which scorer is measured):
    python benchmarks/bench_evals_heldout.py evals/heldout-2026-12-03/tune [--evals evals/evals.json] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import inspect
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from skill_tools.evaluation.score import score_all

from skill_tools.cli import refusal
from skill_tools.evaluation.tasks import load_answers, load_tasks

REPO = Path(__file__).resolve().parent.parent


def _score(evals: Path, answers: Path) -> dict[str, dict]:
    # skill-tools' own parser judges the commands an answer gives (scorers before 2026-12-04 lack it)
    kw = {"refusal": refusal} if "refusal" in inspect.signature(score_all).parameters else {}
    report = score_all(load_tasks(evals), load_answers(answers), **kw)
    return {a["agent"].split("/")[-1]: a for a in report["answers"]}


def _foreign(split: Path, tmp: Path) -> dict[str, dict]:
    answers = split / "answers" / "foreign_answers.jsonl"
    tasks_file = split.parent / "foreign_tasks.json"
    if not answers.is_file() or not tasks_file.is_file():
        return {}
    by_skill: dict[str, list] = defaultdict(list)
    for entry in json.loads(tasks_file.read_text()):
        by_skill[entry["task"].get("expected_skill") or "unknown"].append(entry["task"])
    out: dict[str, dict] = {}
    rows = [json.loads(line) for line in answers.read_text().splitlines() if line.strip()]
    for skill, tasks in by_skill.items():
        ids = {str(t["id"]) for t in tasks}
        mine = [r for r in rows if r["id"] in ids]
        if not mine:
            continue
        set_path = tmp / f"{skill}.json"
        layout = {"skill_name": skill, "evals": tasks} if any("prompt" in t for t in tasks) else tasks
        set_path.write_text(json.dumps(layout))  # as that skill's catalog ships it
        ans_path = split / "answers" / f".{skill}.jsonl"  # beside the answer files it names
        ans_path.write_text("".join(json.dumps(r) + "\n" for r in mine))
        try:
            out.update(_score(set_path, ans_path))
        finally:
            ans_path.unlink()
    return out


def _judged(verdicts_file: Path, answers: Path) -> dict[str, str]:
    """answer id -> the judge's overall verdict (fail when any assertion fails, pass when some pass)."""
    from skill_tools.evaluation.judge_replay import load_verdicts
    from skill_tools.evaluation.judge import request_key

    recorded = load_verdicts(verdicts_file)
    out = {}
    for rec in load_answers(answers):
        got = recorded.get(request_key(rec.id, rec.answer))
        if got is None:
            continue
        vs = [v.get("verdict") for v in got["verdicts"]]
        out[rec.agent.split("/")[-1]] = "fail" if "fail" in vs else "pass" if "pass" in vs else "unsure"
    return out


def _with_judge(rows: list[dict], judged: dict[str, str]) -> dict:
    """False passes / fails when the judge vetoes deterministic passes, and when it decides alone."""
    out = {"answers_judged": sum(r["id"] in judged for r in rows)}
    for policy in ("veto", "judge"):
        fp = ff = 0
        for r in rows:
            if r["score"] is None:
                continue
            v = judged.get(r["id"], "unsure")
            passed = bool(r["passed"]) and v != "fail" if policy == "veto" else (
                v == "pass" if v != "unsure" else bool(r["passed"]))
            fp += r["label"] == "wrong" and passed
            ff += r["label"] == "correct" and not passed
        out[policy] = {"false_passes": fp, "false_fails": ff}
    out["mistakes_judge"] = [r["id"] for r in rows if r["score"] is not None and r["id"] in judged
                             and judged[r["id"]] != "unsure" and (judged[r["id"]] == "pass") != (r["label"] == "correct")]
    return out


def measure(split: Path, evals: Path, threshold: float = 0.7, judge_verdicts: Path | None = None) -> dict:
    labels = [json.loads(line) for line in (split / "labels.jsonl").read_text().splitlines() if line.strip()]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        scored = _score(evals, split / "answers" / "answers.jsonl")
        scored.update(_foreign(split, Path(tmp)))
    seconds = time.perf_counter() - start
    rows = []
    for lab in labels:
        a = scored.get(lab["id"])
        if a is None:
            rows.append({**lab, "score": None, "passed": None, "why": "not scored"})
            continue
        rows.append({"id": lab["id"], "task": lab["task"], "style": lab["style"], "label": lab["label"],
                     "score": a["score"], "passed": a["passed"], "fatal": a.get("fatal", [])[:2],
                     "problem": a.get("problem")})
    correct = [r for r in rows if r["label"] == "correct" and r["score"] is not None]
    wrong = [r for r in rows if r["label"] == "wrong" and r["score"] is not None]
    pairs = inverted = ties = 0
    by_task: dict[str, list] = defaultdict(list)
    for r in correct + wrong:
        by_task[r["task"]].append(r)
    for rs in by_task.values():
        for c in (r for r in rs if r["label"] == "correct"):
            for w in (r for r in rs if r["label"] == "wrong"):
                pairs += 1
                inverted += c["score"] < w["score"]
                ties += c["score"] == w["score"]
    styles: dict[str, dict] = {}
    for r in correct + wrong:
        s = styles.setdefault(r["style"], {"n": 0, "false_passes": 0, "false_fails": 0})
        s["n"] += 1
        s["false_passes"] += r["label"] == "wrong" and bool(r["passed"])
        s["false_fails"] += r["label"] == "correct" and not r["passed"]
    extra = {"with_judge": _with_judge(rows, _judged(judge_verdicts, split / "answers" / "answers.jsonl"))} \
        if judge_verdicts else {}
    return {
        "split": split.name, "answers": len(rows), "correct": len(correct), "wrong": len(wrong),
        "false_passes": sum(bool(r["passed"]) for r in wrong),
        "false_fails": sum(not r["passed"] for r in correct),
        "pairs": pairs, "inverted_pairs": inverted, "tied_pairs": ties,
        "inverted_share": round(inverted / pairs, 4) if pairs else None,
        "mean_correct": round(statistics.fmean(r["score"] for r in correct), 4) if correct else None,
        "mean_wrong": round(statistics.fmean(r["score"] for r in wrong), 4) if wrong else None,
        "targets": {"false_passes_max": round(3 * len(wrong) / 45, 2), "false_fails_max": round(3 * len(correct) / 45, 2),
                    "inverted_share_max": 0.05},
        "seconds": round(seconds, 2), "by_style": styles,
        "mistakes": [r for r in rows if r["score"] is not None and (r["passed"] != (r["label"] == "correct"))],
        **extra,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("split", help="split folder (labels.jsonl, answers/)")
    ap.add_argument("--evals", default=str(REPO / "evals" / "evals.json"))
    ap.add_argument("--out", help="write the JSON result here")
    ap.add_argument("--label", default="", help="what was measured (e.g. 'before', 'after')")
    ap.add_argument("--judge-verdicts", help="a judge's recorded verdicts for this split (evals judge-replay format)")
    args = ap.parse_args()
    res = measure(Path(args.split), Path(args.evals),
                  judge_verdicts=Path(args.judge_verdicts) if args.judge_verdicts else None)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO).stdout.strip()
    res = {"date": dt.date.today().isoformat(), "label": args.label, "scorer_commit": commit, **res}
    t = res["targets"]
    ok = (res["false_passes"] <= t["false_passes_max"] and res["false_fails"] <= t["false_fails_max"]
          and (res["inverted_share"] or 0) <= t["inverted_share_max"])
    print(f"{res['split']} ({args.label or 'scorer at ' + commit}): {res['answers']} answers; false passes "
          f"{res['false_passes']}/{res['wrong']} wrong, false fails {res['false_fails']}/{res['correct']} correct, "
          f"inverted pairs {res['inverted_pairs']}/{res['pairs']} ({100 * (res['inverted_share'] or 0):.1f}%, "
          f"{res['tied_pairs']} tied); mean correct {res['mean_correct']}, wrong {res['mean_wrong']}; "
          f"{res['seconds']} s -> {'within targets' if ok else 'OUTSIDE TARGETS'}")
    for m in res["mistakes"]:
        print(f"  {'false pass' if m['label'] == 'wrong' else 'false fail'}: {m['id']} {m['task']} [{m['style']}] "
              f"{m['score']}" + (f" problem={m['problem']}" if m.get("problem") else ""))
    wj = res.get("with_judge")
    if wj:
        print(f"  with the judge ({wj['answers_judged']} answers judged): veto -> false passes "
              f"{wj['veto']['false_passes']}/{res['wrong']}, false fails {wj['veto']['false_fails']}/{res['correct']}; "
              f"judge decides -> {wj['judge']['false_passes']}/{res['wrong']}, {wj['judge']['false_fails']}/{res['correct']}; "
              f"judge alone wrong on: {' '.join(wj['mistakes_judge']) or 'none'}")
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
