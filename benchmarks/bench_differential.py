"""Full catalog-vs-MCore differential for the installed megatron-core (run once per env):

    .venv/bin/python benchmarks/bench_differential.py [--count 5000]
    PYTHONPATH=. .venv-legacy/bin/python benchmarks/bench_differential.py

Writes benchmarks/results/<date>-differential-<era>-<mcore>.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import pathlib
import time
import warnings

from skill_tools.config.era import era_for, installed_version
from skill_tools.rules.differential import run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=20260101)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    era = era_for(installed_version("megatron-core"))
    t0 = time.perf_counter()
    res = run(era, args.count, seed=args.seed)
    data = {**res.to_dict(), "seed": args.seed, "seconds": round(time.perf_counter() - t0, 2),
            "date": dt.date.today().isoformat()}
    out = pathlib.Path(__file__).parent / "results" / f"{data['date']}-differential-{era.name}-{era.mcore_version}.json"
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(json.dumps({k: data[k] for k in ("era", "mcore_version", "count", "oracle_errors", "disagreements", "agreement",
                                           "drawn", "seconds")}))
    return 0 if not res.disagreements else 1


if __name__ == "__main__":
    raise SystemExit(main())
