"""Freeze the test split of the fresh log corpus: a random half of the scorable excerpts.

Run once, before any change to the reader (the split is committed as test_split.txt; the other half
is the tuning half). Re-running with the same seed and the same corpus gives the same list.
Usage: python benchmarks/logs_corpus/split.py [--check]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from add import load  # noqa: E402

SEED = 20261203
SPLIT = HERE / "test_split.txt"


def scorable_ids() -> list[str]:
    return sorted(r["id"] for r in load() if r["kind"] != "duplicate")


def frozen() -> list[str]:
    return [line.strip() for line in SPLIT.read_text().splitlines() if line.strip() and not line.startswith("#")]


def draw(ids: list[str]) -> list[str]:
    rng = random.Random(SEED)
    return sorted(rng.sample(ids, len(ids) // 2))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only verify the committed split")
    args = ap.parse_args()
    ids = scorable_ids()
    if args.check:
        missing = sorted(set(frozen()) - set(ids))
        print(f"{len(frozen())} frozen test ids; {len(missing)} not in the corpus")
        return 1 if missing else 0
    if SPLIT.exists():
        print(f"{SPLIT.name} exists: the split is frozen; refusing to redraw it", file=sys.stderr)
        return 2
    test = draw(ids)
    SPLIT.write_text(f"# frozen test split, seed {SEED}, {len(test)} of {len(ids)} scorable excerpts\n"
                     + "\n".join(test) + "\n")
    print(f"wrote {SPLIT.name}: {len(test)} test ids of {len(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
