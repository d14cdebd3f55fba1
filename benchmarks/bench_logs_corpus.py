"""How well `skill-tools logs` reads real logs: right / partly / wrong / missed / refused on the corpus.

The corpus (tests/fixtures/logs/corpus/corpus.yaml) holds verbatim excerpts from public issues and
PRs (vLLM, SGLang, NeMo, PyTorch, Megatron-LM, Megatron Bridge, Transformer Engine, ...) and real
runs of this project's GPU harness, each with the thread's root cause and the verdict the text
supports. Scoring rules: tests/fixtures/logs/corpus/score_corpus.py.

Writes benchmarks/results/<date>-logs-corpus.json (per-entry outcomes and counts).
Usage: python benchmarks/bench_logs_corpus.py [--out PATH] [--label TEXT]
Run it with another checkout first on PYTHONPATH to score that code (the corpus and scorer are
always this tree's): PYTHONPATH=<old checkout> python benchmarks/bench_logs_corpus.py --label old
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "fixtures" / "logs" / "corpus"))

import score_corpus  # noqa: E402


def _commit() -> str:
    try:
        import skill_tools

        root = Path(skill_tools.__file__).resolve().parent.parent
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False).stdout.strip() or "unknown"
    except Exception:  # noqa: BLE001 - the commit is informative only
        return "unknown"


def _rel(text: str) -> str:
    """Paths in messages relative to the repository (results files name no machine paths)."""
    return text.replace(str(REPO) + "/", "") if isinstance(text, str) else text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--label", default="current")
    args = ap.parse_args()
    results = score_corpus.score_all()
    counts = score_corpus.counts(results)
    out = {
        "benchmark": "logs-corpus",
        "date": dt.date.today().isoformat(),
        "label": args.label,
        "code_commit": _commit(),
        "entries": len(results),
        "public_excerpts": sum(1 for e in score_corpus.load() if not e["source"].startswith("run:")),
        "counts": counts,
        "results": [{k: _rel(r[k]) for k in ("id", "source", "outcome", "why") if k in r} | {"got": r.get("got")}
                    for r in results],
    }
    path = Path(args.out) if args.out else REPO / "benchmarks" / "results" / f"{out['date']}-logs-corpus.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"{args.label}: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + f" of {len(results)}; wrote {path}")
    for r in results:
        if r["outcome"] != "right":
            print(f"  {r['outcome']:8s} {r['id']}: {r['why']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
