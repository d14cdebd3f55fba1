"""A short summary of the inference results documents in a folder (``python -m
skill_tools.harness.inference.summary DIR``): one line per workload and scope with the decode-step
speedup at the smallest and largest batch, the parity verdicts and capture time, and what was not
measured and why. Reads only the JSON files ``inference_runner`` wrote; no torch."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _speedup(vs: list[dict[str, Any]], pick) -> str:
    vs = [v for v in vs if v.get("speedup_vs_eager")]
    if not vs:
        return "—"
    v = pick(vs, key=lambda v: v["batch_size"])
    return f"{v['speedup_vs_eager']['point']:.2f}× @b{v['batch_size']}"


def _verdict(flag: bool | None) -> str:
    return {True: "yes", False: "NO", None: "not run"}[flag]


def summarize(doc: dict[str, Any]) -> list[str]:
    name = doc.get("workload", {}).get("name", "?")
    if doc.get("status") == "unavailable":
        return [f"{name}: NOT MEASURED: " + "; ".join(doc.get("unavailable", []))]
    if doc.get("status") == "failed":
        return [f"{name}: FAILED: " + "; ".join(f"{f.get('scope')}: {f.get('error_class')}: {f.get('evidence')}"
                                                 for f in doc.get("failures", []))]
    lines = []
    by_scope: dict[str, list[dict[str, Any]]] = {}
    for v in doc.get("variants", []):
        if v["inference_scope"] != "none":
            by_scope.setdefault(v["inference_scope"] + (" [batch-invariant]" if v.get("batch_invariant") else ""),
                                []).append(v)
    for scope, vs in by_scope.items():
        cap = next((v.get("capture_s") for v in vs if v.get("capture_s") is not None), None)
        same = [v["tokens_match_same_shape_eager"] for v in vs if "tokens_match_same_shape_eager" in v]
        plain = [v["tokens_match_eager"] for v in vs if v.get("tokens_match_eager") is not None]
        line = (f"{name} {scope}: step speedup {_speedup(vs, min)} .. {_speedup(vs, max)}; "
                f"tokens = eager {_verdict(all(plain) if plain else None)}; "
                f"same padded shapes {_verdict(all(same) if same else None)}")
        if isinstance(cap, (int, float)):
            line += f"; capture {cap:.2f} s"
        lines.append(line)
    for f in doc.get("failures", []):
        lines.append(f"{name} {f.get('scope')}: FAILED {f.get('error_class')}: {f.get('evidence')}")
    return lines or [f"{name}: no graphed variant in the document"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folder")
    args = p.parse_args(argv)
    docs = sorted(Path(args.folder).glob("*.json"))
    if not docs:
        print(f"inference summary: no results JSON in {args.folder}", file=sys.stderr)
        return 1
    for path in docs:
        try:
            doc = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            print(f"{path.name}: unreadable ({exc})")
            continue
        if doc.get("kind") == "inference":
            print("\n".join(summarize(doc)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
