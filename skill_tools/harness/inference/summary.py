"""A short summary of the inference results documents in a folder (``skill-tools bench --summary
DIR``): one line per workload and scope with the decode-step speedup at the smallest and largest
batch, the parity verdicts and capture time, and what was not measured and why. Reads only the JSON
files ``bench --mode inference`` wrote; no torch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skill_tools.errors import EXIT_OK, InputError


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


def print_folder(folder: Path) -> int:
    """``bench --summary FOLDER``: one summary per inference results JSON in the folder."""
    docs = sorted(Path(folder).glob("*.json"))
    if not docs:
        raise InputError("--summary", f"no results JSON in {folder}", hint="pass the --out folder of bench --mode inference")
    for path in docs:
        try:
            doc = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            print(f"{path.name}: unreadable ({type(exc).__name__})")
            continue
        if isinstance(doc, dict) and doc.get("kind") == "inference":
            print("\n".join(summarize(doc)))
    return EXIT_OK
