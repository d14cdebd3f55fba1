"""The upstream corpus as the judge: validator false rejections and misses, recommender agreement
with NVIDIA's choices, oracle disagreements, on the tuning half and the frozen test half.

    .venv/bin/python benchmarks/bench_upstream_corpus.py --label after [--oracle] [--date 2026-12-03]

Writes benchmarks/results/<date>-upstream-corpus-<label>.json.gz (summary per split and era, and
every case's outcome; gzipped: the results folder travels with every GPU call) and prints the summary.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks" / "upstream_corpus"))

from measure import load_cases, load_split, measure  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--oracle", action="store_true", help="also run megatron-core's TransformerConfig (slow)")
    ap.add_argument("--date", default=dt.date.today().isoformat())
    args = ap.parse_args()
    result = measure(load_cases(), load_split(), oracle=args.oracle)
    result = {"corpus": "upstream", "label": args.label, "date": args.date, **result}
    out = REPO / "benchmarks" / "results" / f"{args.date}-upstream-corpus-{args.label}.json.gz"
    with gzip.GzipFile(out, "wb", mtime=0) as f:
        f.write((json.dumps(result, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    print(json.dumps(result["summary"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
