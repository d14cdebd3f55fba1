"""Freeze the test split of the upstream corpus: a random half of the case ids (fixed seed),
written once to ``split.json`` before any rule is tuned on the corpus. It refuses to overwrite the
file: the split is the measure of fresh inputs, so changing it after tuning would hide overfitting.
Cases harvested later (not in the file) belong to neither half until a new split is frozen.

    python benchmarks/upstream_corpus/freeze_split.py [--seed 20261203]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args()
    out = HERE / "split.json"
    if out.exists():
        print(f"{out.name} exists: the split is frozen (delete it only to start a new, unmeasured split)")
        return 2
    ids = sorted(json.loads(line)["id"] for line in (HERE / "cases.jsonl").read_text(encoding="utf-8").splitlines())
    rng = random.Random(args.seed)
    test = sorted(rng.sample(ids, len(ids) // 2))
    out.write_text(json.dumps({"seed": args.seed, "cases": len(ids), "test": test,
                               "tune": sorted(set(ids) - set(test))}, indent=0) + "\n", encoding="utf-8")
    print(f"froze {len(test)} of {len(ids)} cases as the test split")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
