"""Megatron Bridge's own ConfigContainer.validate() (and provider asserts) as the judge of the Bridge
cases of the upstream corpus, beside upstream's verdict and the catalog's. Needs an environment where
megatron.bridge imports (Transformer Engine on CPU); elsewhere it says so and exits 2.

    python benchmarks/upstream_corpus/bridge_judge.py --out benchmarks/results/<date>-upstream-corpus-bridge-judge.json
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import load_cases, load_split  # noqa: E402


#: The corpus tag whose unit tests the installed Bridge (0.6.x) answers for.
BRIDGE_TAG = "v0.6.0"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from skill_tools.api import validate
    from skill_tools.config.era import installed_version

    bridge = installed_version("megatron-bridge")
    if bridge is None:
        print("megatron-bridge is not installed here: nothing to judge")
        return 2
    split = load_split()
    rows = []
    for c in load_cases():
        if not c["repo"].endswith("Megatron-Bridge") or c["kind"] != "unit_test" or c["tag"] != BRIDGE_TAG:
            continue  # only the tag of the installed Bridge (0.6.x): older tests assert older behaviour
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = validate(c["text"] + "\n", installed_version("megatron-core"), fmt=c["format"], oracle=True)
        b = report.oracle.get("bridge") or {}
        rows.append({"id": c["id"], "split": split.get(c["id"], "unsplit"), "tag": c["tag"], "upstream": c["verdict"],
                     "catalog": "rejected" if not report.ok else "accepted", "bridge_ran": bool(b.get("ran")),
                     "bridge": None if not b.get("ran") else ("accepted" if b.get("ok") else "rejected"),
                     "bridge_error": (b.get("error") or b.get("reason") or "")[:200]})
    summary = collections.Counter((r["upstream"], r["bridge"], r["catalog"]) for r in rows)
    out = {"corpus": "upstream", "label": "bridge-judge", "bridge_version": bridge,
           "mcore_version": installed_version("megatron-core"),
           "summary": [{"upstream": k[0], "bridge": k[1], "catalog": k[2], "cases": n} for k, n in sorted(summary.items(), key=str)],
           "cases": rows}
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(out["summary"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
