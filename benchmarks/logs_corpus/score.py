"""Score `skill-tools logs` on the fresh corpus: right / partly / wrong / missed / refused per split.

Each excerpt is written to a file and read the way the CLI reads it (``parse_path`` then
``verdict.build``); the verdict is compared with the label taken from the thread (``expected``):

- refused: the tool would not read a log (InputError). A pasted non-log (``kind: not-a-log``) that is
  refused, or read with no error finding, is *right*: "nothing to read" is the honest answer;
- missed:  a finding was due and none was reported;
- wrong:   an error on text that needs none; a Megatron/non-Megatron stack flip; a Megatron-only fix
  for another stack; a specific cause that is not among the expected ones; a CUDA-graph cause for a
  thread whose cause is not a CUDA-graph one;
- right:   stack, cause, finding and capture status all as labelled;
- partly:  everything else (e.g. right cause, capture status too weak).
A *wrong-with-confidence* is a wrong outcome that names a specific catalogue cause (not one of the
generic findings such as an uncaught exception or a cut traceback).

Usage: python benchmarks/logs_corpus/score.py [--label L] [--out PATH] [--show {test,tuning,all}]
Run with another checkout first on PYTHONPATH to score that code (the corpus is always this tree's).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

from add import CHECK_QUOTED, DEV_QUOTED, OUT, load  # noqa: E402
from split import frozen  # noqa: E402

OUTCOMES = ("right", "partly", "wrong", "missed", "refused")
#: Findings that say "something failed" without naming a cause.
GENERIC = frozenset({"uncaught-exception", "incomplete-traceback", "hang-stack-dump", "worker-failed", "error-logged"})
#: Causes any GPU program can hit without CUDA graphs (right for a non-graph thread).
NEUTRAL = GENERIC | frozenset({
    "cuda-oom", "illegal-memory-access", "nccl-error", "nccl-watchdog-timeout", "nan-or-inf", "job-time-limit",
    "worker-segfault", "teardown-hang", "log-ends-in-teardown", "te-input-dtype-mismatch", "serving-decode-stalled",
    "custom-op-missing-cuda-kernel", "te-mcore-api-mismatch", "mamba-ssm-unimportable", "mamba-kernel-packages",
    "te-attention-backend-missing", "moe-dispatcher-sync-point-assert", "cublas-handle-init-failed",
    "serving-watchdog-timeout",
})
MEGATRON_WORDS = re.compile(r"Megatron|MCore|cuda_graph_|--cuda-graph|Bridge|TECudaGraphHelper|overlap_param_gather")
MEGATRON = frozenset({"megatron-lm", "megatron-bridge"})


def _read(path: Path) -> dict[str, Any] | str:
    """The verdict as the CLI builds it, or the refusal message."""
    from skill_tools.errors import InputError
    from skill_tools.logs.parse import parse_path
    from skill_tools.logs.verdict import build

    try:
        log = parse_path(path)
    except InputError as exc:
        return str(exc).replace(f"{path.parent}/", "")  # the temporary folder is no part of the result
    v = build(log)
    return {"stack": v.stack["name"], "ids": [f.id for f in v.failures], "capture": v.capture_status,
            "errors": [f.id for f in v.failures if f.severity == "error"],
            "quoted": [f.id for f in v.failures if getattr(f, "quoted", False)],
            "megatron_fix": [f.id for f in v.failures if MEGATRON_WORDS.search(f"{f.cause} {f.fix}")]}


def judge(entry: dict[str, Any], got: dict[str, Any] | str) -> tuple[str, str, bool]:
    """(outcome, why, wrong_with_confidence)."""
    exp = entry["expected"]
    if isinstance(got, str):
        if entry["kind"] == "not-a-log":
            return "right", "refused a non-log", False
        return "refused", got[:200], False
    ids, stack, errors = got["ids"], got["stack"], got["errors"]
    causes = exp["causes"]
    specific = [i for i in ids if i not in GENERIC]
    wrong_specific = [i for i in specific if i not in causes]
    if entry["kind"] == "not-a-log":
        if errors:
            return "wrong", f"error findings on a non-log: {errors}", bool(set(errors) - GENERIC)
        return "right", "", False
    if exp["finding"] and not ids:
        return "missed", "no finding reported", False
    quoted = got.get("quoted", [])
    if exp["finding"] and quoted and not errors and not [i for i in ids if i not in quoted and i not in GENERIC]:
        return "partly", f"a real paste hedged as quoted prose: {quoted}", False
    if not exp["finding"] and errors:
        return "wrong", f"false alarm {errors}", bool(set(errors) - GENERIC)
    flip = stack not in exp["stack"] and stack != "unknown" and all(
        (stack in MEGATRON) != (s in MEGATRON) for s in exp["stack"] if s != "unknown")
    if flip:
        return "wrong", f"stack {stack}, expected {exp['stack']}", False
    if got["megatron_fix"] and not any(s in MEGATRON for s in exp["stack"]):
        return "wrong", f"Megatron fix offered for a {stack} log: {got['megatron_fix']}", True
    if causes and wrong_specific and not any(i in causes for i in ids):
        return "wrong", f"causes {wrong_specific}, expected one of {causes}", True
    graph_specific = [i for i in specific if i not in NEUTRAL]
    if not exp.get("graph_cause", True) and graph_specific:
        return "wrong", f"CUDA-graph cause {graph_specific} for a non-graph failure", True
    misses = [n for n, ok in (
        ("stack", stack in exp["stack"]),
        ("cause", not causes or any(i in causes for i in ids)),
        ("finding", bool(ids) == bool(exp["finding"])),
        ("capture", got["capture"] in exp["capture"]),
    ) if not ok]
    if not misses:
        return "right", "", False
    return "partly", "wrong " + ", ".join(misses), False


def score_all(corpus: Path = OUT) -> list[dict[str, Any]]:
    """Every scorable excerpt of ``corpus``; the main corpus is split test/tuning, any other file is 'dev'."""
    test = set(frozen()) if corpus == OUT else set()
    split = "tuning" if corpus == OUT else "dev"
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for e in load(corpus):
            if e["kind"] == "duplicate":
                continue
            path = Path(tmp) / f"{e['id']}.log"
            path.write_text(e["text"], encoding="utf-8")
            got = _read(path)
            outcome, why, confident = judge(e, got)
            out.append({"id": e["id"], "url": e["url"], "kind": e["kind"],
                        "split": "test" if e["id"] in test else split, "outcome": outcome, "why": why,
                        "wrong_with_confidence": confident,
                        "got": got if isinstance(got, dict) else {"refused": got[:200]},
                        "expected": e["expected"]})
    return out


def counts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    c: dict[str, Any] = {k: sum(r["outcome"] == k for r in rows) for k in OUTCOMES}
    c["wrong_with_confidence"] = sum(r["wrong_with_confidence"] for r in rows)
    c["total"] = len(rows)
    c["right_pct"] = round(100 * c["right"] / len(rows), 1) if rows else 0.0
    return c


def _commit() -> str:
    try:
        import skill_tools

        root = Path(skill_tools.__file__).resolve().parent.parent
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False).stdout.strip() or "unknown"
    except Exception:  # noqa: BLE001 - informative only
        return "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="current")
    ap.add_argument("--out", default=None)
    ap.add_argument("--show", choices=("test", "tuning", "dev", "all", "none"), default="tuning",
                    help="list the non-right entries of this split (default: tuning; look at test only when reporting)")
    ap.add_argument("--set", choices=("corpus", "dev-quoted", "check-quoted"), default="corpus",
                    help="corpus: excerpts.jsonl.gz (frozen test split + tuning half); dev-quoted: dev_quoted.jsonl.gz "
                         "(errors quoted in prose vs short real pastes; development only, one split 'dev'); "
                         "check-quoted: check_quoted.jsonl.gz (the same question, fresh, scored once; split 'dev')")
    args = ap.parse_args()
    corpus = {"corpus": OUT, "dev-quoted": DEV_QUOTED, "check-quoted": CHECK_QUOTED}[args.set]
    rows = score_all(corpus)
    names = ("test", "tuning") if corpus == OUT else ("dev",)
    splits = {name: counts([r for r in rows if r["split"] == name]) for name in names}
    result = {"benchmark": "logs-fresh-corpus" if corpus == OUT else f"logs-{args.set}",
              "date": dt.date.today().isoformat(), "label": args.label,
              "code_commit": _commit(), "corpus": f"benchmarks/logs_corpus/{corpus.name}",
              "seed_split": "benchmarks/logs_corpus/test_split.txt" if corpus == OUT else None,
              "counts": dict(splits, all=counts(rows)),
              "results": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for name in names:
        c = splits[name]
        print(f"{args.label} {name:6s}: " + ", ".join(f"{k} {c[k]}" for k in OUTCOMES)
              + f"; wrong-with-confidence {c['wrong_with_confidence']}; right {c['right_pct']}% of {c['total']}")
    for r in rows:
        if r["outcome"] != "right" and args.show in (r["split"], "all"):
            print(f"  {r['outcome']:7s} {r['id']}: {r['why']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
