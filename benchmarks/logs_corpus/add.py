"""Append harvested excerpts to excerpts.jsonl.gz (the helper used while harvesting; see README.md).

Each excerpt is the log part of one search result, as the thread shows it, with the thread's address,
the query that found it and a label taken from the thread's resolution (``E`` below).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("excerpts.jsonl.gz")
#: development set for errors quoted in prose vs short real pastes (kept apart from the frozen split)
DEV_QUOTED = Path(__file__).with_name("dev_quoted.jsonl.gz")
#: a small fresh check of the same question, harvested after the design was frozen and scored once
CHECK_QUOTED = Path(__file__).with_name("check_quoted.jsonl.gz")


def load(path: Path = OUT) -> list[dict]:
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def add(entries: list[dict], path: Path = OUT) -> None:
    rows = load(path)
    seen = {r["id"] for r in rows}
    for e in entries:
        if e["id"] in seen:
            print("duplicate id, skipped:", e["id"], file=sys.stderr)
            continue
        seen.add(e["id"])
        rows.append(e)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def E(id, url, query, text, stack, causes, finding, capture, resolution, kind="log", graph_cause=True):
    """One excerpt. expected: stack names accepted, cause ids accepted ([] = none required),
    whether a finding is due, capture statuses accepted; graph_cause=False: the thread's cause is not
    a CUDA-graph one, so a CUDA-graph-specific cause is wrong. kind: log | not-a-log | duplicate
    (a thread the project's own corpus already holds: kept for the record, never scored)."""
    return {"id": id, "url": url, "query": query, "kind": kind, "text": text.strip("\n") + "\n",
            "expected": {"stack": stack, "causes": causes, "finding": finding, "capture": capture,
                         "graph_cause": graph_cause},
            "resolution": resolution}
