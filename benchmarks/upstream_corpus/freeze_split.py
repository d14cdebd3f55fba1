"""Freeze the test split of the upstream corpus: a random half of the case ids (fixed seed),
written once to ``split.json`` before any rule is tuned on the corpus. It refuses to overwrite the
file: the split is the measure of fresh inputs, so changing it after tuning would hide overfitting.
Cases harvested later (not in the file) belong to neither half until a new split is frozen.

    python benchmarks/upstream_corpus/freeze_split.py [--seed 20261203]
    python benchmarks/upstream_corpus/freeze_split.py --carry-from OLD_CASES.jsonl --frozen OLD_SPLIT.json

``--carry-from`` keeps the frozen membership when a harvester fix re-identifies cases: each case
takes the half of the case of the frozen harvest with the same origin (repository, file, era, test,
line, preset or function); cases without one are listed as ``added`` (in neither half).
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
    ap.add_argument("--carry-from", help="the cases.jsonl a split was frozen on")
    ap.add_argument("--frozen", help="the split.json frozen on --carry-from (default: split.json)")
    args = ap.parse_args()
    out = HERE / "split.json"
    if args.carry_from:
        return carry(Path(args.carry_from), Path(args.frozen) if args.frozen else out, out)
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


def _origin(case: dict) -> tuple:
    return (case["repo"], case["file"], case["era"], case.get("test"), case["line"] if case["kind"] == "unit_test" else None,
            json.dumps(case.get("meta"), sort_keys=True), case["verdict"])


def carry(old_path: Path, frozen_path: Path, out: Path) -> int:
    frozen = json.loads(frozen_path.read_text(encoding="utf-8"))
    half = {**{i: "tune" for i in frozen["tune"]}, **{i: "test" for i in frozen["test"]}}
    queue: dict[tuple, list[str]] = {}
    for line in old_path.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        queue.setdefault(_origin(case), []).append(half[case["id"]])
    new = [json.loads(line) for line in (HERE / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    result: dict[str, list[str]] = {"test": [], "tune": [], "added": []}
    for case in new:
        taken = queue.get(_origin(case))
        result[taken.pop(0) if taken else "added"].append(case["id"])
    dropped = sum(len(v) for v in queue.values())
    out.write_text(json.dumps({"seed": frozen["seed"], "cases": len(new), **{k: sorted(v) for k, v in result.items()},
                               "carried_from_cases": frozen.get("carried_from_cases", frozen["cases"]),
                               "no_longer_harvested": dropped},
                              indent=0) + "\n", encoding="utf-8")
    print({k: len(v) for k, v in result.items()}, "no longer harvested:", dropped)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
