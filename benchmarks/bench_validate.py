"""Cold `skill-tools validate` wall time on a Bridge YAML (no oracle): a fresh interpreter per run.

    .venv/bin/python benchmarks/bench_validate.py [--runs 20]

Writes benchmarks/results/<date>-validate-cold.json (median, p90, max; budget: median <= 0.5 s).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import pathlib
import subprocess
import sys
import time

from skill_tools.stats import summarize

REPO = pathlib.Path(__file__).resolve().parent.parent
BUDGET_S = 0.5
EXAMPLE = REPO / "examples" / "bridge_llama_dense_graph_mistakes.yaml"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    exe = pathlib.Path(sys.executable).with_name("skill-tools")
    cmd = [str(exe), "validate", str(EXAMPLE), "--json"]
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, capture_output=True, cwd=REPO).returncode
        times.append(time.perf_counter() - t0)
        assert rc == 1, f"unexpected exit {rc}"
    import dataclasses

    stats = dataclasses.asdict(summarize(times))
    data = {"benchmark": "validate-cold", "command": " ".join([cmd[1], str(EXAMPLE.relative_to(REPO)), *cmd[3:]]), "repeats": args.runs,
            "seconds": times, "summary": stats, "budget_s": BUDGET_S, "max_s": max(times),
            "within_budget": stats["median"] <= BUDGET_S, "date": dt.date.today().isoformat(),
            "machine": {"python": sys.version.split()[0]}}
    out = REPO / "benchmarks" / "results" / f"{data['date']}-validate-cold.json"
    out.write_text(json.dumps(data, indent=2, default=str) + "\n")
    print(json.dumps({"summary": stats, "budget_s": BUDGET_S}, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
