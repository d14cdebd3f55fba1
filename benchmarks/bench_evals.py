"""Scoring speed: score 100 answers (the bundled samples, cycled) without --execute.

Budget: <= 10 s on a 2-core CPU machine. Writes benchmarks/results/<date>-evals-score-speed.json.
Usage: python benchmarks/bench_evals.py [--n 100] [--repeats 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import time
from pathlib import Path

from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import load_answers, load_tasks
from skill_tools.stats import summarize

REPO = Path(__file__).resolve().parent.parent
BUDGET_S = 10.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    tasks = load_tasks(REPO / "evals" / "evals.json")
    records = load_answers(REPO / "evals" / "answers" / "samples.jsonl")
    batch = [records[i % len(records)] for i in range(args.n)]
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        report = score_all(tasks, batch)  # fresh scorer each time: no cache carried over
        times.append(time.perf_counter() - start)
    stats = summarize(times)
    validated = sum(1 for a in report["answers"] if a["validation"] and "skipped" not in a["validation"])
    result = {
        "benchmark": "evals-score-speed",
        "date": dt.date.today().isoformat(),
        "answers": args.n, "repeats": args.repeats, "budget_s": BUDGET_S,
        "seconds": [round(t, 4) for t in times],
        "summary": stats.to_dict() if hasattr(stats, "to_dict") else stats,
        "max_s": round(max(times), 4),
        "within_budget": max(times) <= BUDGET_S,
        "answers_validated_by_rules": validated,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
    }
    out = Path(args.out) if args.out else REPO / "benchmarks" / "results" / f"{result['date']}-evals-score-speed.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(f"scored {args.n} answers: max {max(times):.3f}s over {args.repeats} repeats "
          f"(budget {BUDGET_S:.0f}s) -> {'OK' if result['within_budget'] else 'TOO SLOW'}; wrote {out}")
    return 0 if result["within_budget"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
