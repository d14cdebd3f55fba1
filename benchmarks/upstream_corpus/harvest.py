"""Harvest the upstream corpus: CUDA-graph config cases of Megatron-LM's and Megatron Bridge's own
unit tests (with the verdict each test asserts) and the shipped configs that turn graphs on (with
NVIDIA's graph choice), every case citing repository, tag, file and line.

    python benchmarks/upstream_corpus/harvest.py --megatron-lm GIT_DIR --bridge GIT_DIR

``GIT_DIR`` is a clone or bare git directory with the tags (``core_v0.16.0`` … ``core_v0.19.0``;
``v0.3.1`` … ``v0.6.0``). Writes ``cases.jsonl`` (extracted config values and verdicts only, no
upstream code) and ``unconverted.json`` (every case the harvester could not convert, with the
reason). Cases repeated unchanged at a later tag of the same megatron-core era are kept once, with
every tag listed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gitsrc import BRIDGE, BRIDGE_TAGS, MEGATRON_LM, MLM_TAGS, GitSource, mcore_of  # noqa: E402
from harvest_shipped import (example_scripts, functional_tests, perf_presets, recipes,  # noqa: E402
                             run_script_lines)
from harvest_tests import GRAPH_KEY, TestModule  # noqa: E402

HERE = Path(__file__).resolve().parent
GRAPH_REASON = re.compile(r"graph|full_iteration|rng.?tracker|check_for_nan|nan_in|scope|capture", re.I)


def era_name(version: str) -> str:
    major, minor = (int(x) for x in version.split(".")[:2])
    return "legacy" if (major, minor) < (0, 18) else "current"


def _model_yaml(values: dict) -> str:
    tree: dict = {}
    for key, val in values.items():
        section, _, rest = key.partition(".")
        tree.setdefault(section, {})[rest] = val
    return yaml.safe_dump(tree, sort_keys=True)


def unit_test_cases(src: GitSource, tag: str, roots: tuple[str, ...]):
    for path in src.grep_files(tag, r"cuda_graph|cuda-graph", *roots):
        if not path.endswith(".py") or not Path(path).name.startswith("test_"):
            continue
        try:
            module = TestModule(src.show(tag, path))
        except SyntaxError as exc:
            yield {"file": path, "line": exc.lineno or 1, "unconverted": f"not parseable as Python: {exc.msg}"}
            continue
        seen: dict[tuple, int] = {}
        for snap in module.snapshots():
            n = seen[(snap.test, snap.line)] = seen.get((snap.test, snap.line), -1) + 1
            base = {"file": path, "line": snap.line, "test": snap.test, "snapshot": n}
            if snap.unresolved:
                yield {**base, "unconverted": "graph setting not a literal: " + "; ".join(snap.unresolved)}
                continue
            if snap.kind == "cli":
                fmt, text = "megatron_lm", "python pretrain_gpt.py " + shlex.join(snap.values)
            else:
                fmt, text = "yaml", _model_yaml(snap.values)
            verdict = "rejected" if snap.raises else "accepted"
            exc, match = snap.raises or (None, None)
            why = f"{exc or ''} {match or ''} {snap.test}"
            yield {**base, "format": fmt, "text": text, "verdict": verdict, "exception": exc, "message": match,
                   "frontend": {"cli": "megatron_lm", "model": "model_only", "container": "bridge"}[snap.kind],
                   "graph_reason": bool(snap.raises) and bool(GRAPH_REASON.search(why))}


def shipped_cases(src: GitSource, tag: str, harvesters):
    for harvest in harvesters:
        for path, line, fmt, text, choice, meta in harvest(src, tag):
            base = {"file": path, "line": line, "origin": harvest.__name__}
            if fmt is None:
                yield {**base, **meta}
                continue
            yield {**base, "format": fmt, "text": text, "verdict": "accepted", "nvidia_choice": choice, "meta": meta}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--megatron-lm", required=True, help="git directory of NVIDIA/Megatron-LM")
    ap.add_argument("--bridge", required=True, help="git directory of NVIDIA-NeMo/Megatron-Bridge")
    ap.add_argument("--out", default=str(HERE))
    ap.add_argument("--mlm-tags", default=",".join(MLM_TAGS), help="Megatron-LM tags (comma-separated)")
    ap.add_argument("--bridge-tags", default=",".join(BRIDGE_TAGS), help="Bridge tags (each needs its megatron-core "
                    "in gitsrc.BRIDGE_MCORE)")
    args = ap.parse_args()
    mlm, bridge = GitSource(MEGATRON_LM, args.megatron_lm), GitSource(BRIDGE, args.bridge)
    jobs = []
    for tag in [t for t in args.mlm_tags.split(",") if t]:
        jobs.append((mlm, tag, "unit_test", unit_test_cases(mlm, tag, ("tests/unit_tests",))))
        jobs.append((mlm, tag, "shipped", shipped_cases(mlm, tag, (functional_tests, example_scripts))))
    for tag in [t for t in args.bridge_tags.split(",") if t]:
        jobs.append((bridge, tag, "unit_test", unit_test_cases(bridge, tag, ("tests/unit_tests",))))
        jobs.append((bridge, tag, "shipped", shipped_cases(bridge, tag, (recipes, perf_presets, run_script_lines))))
    cases: dict[tuple, dict] = {}
    unconverted: list[dict] = []
    for src, tag, kind, rows in jobs:
        version = mcore_of(src.repo, tag)
        for row in rows:
            cite = {"repo": src.repo, "tag": tag, "file": row.pop("file"), "line": row.pop("line")}
            if "unconverted" in row:
                unconverted.append({**cite, "kind": kind, "reason": row["unconverted"],
                                    **({"test": row["test"]} if "test" in row else {})})
                continue
            key = (src.repo, cite["file"], row["text"], row["verdict"], era_name(version))
            if key in cases:
                cases[key]["tags"].append(tag)
                continue
            # the id names the case's origin (file, test or preset, position), not its rendered text,
            # so a rendering fix keeps every case in its frozen split
            ident = (src.repo, cite["file"], era_name(version), row.get("test"), json.dumps(row.get("meta"), sort_keys=True),
                     cite["line"] if kind == "unit_test" else None, row.get("snapshot"))
            digest = hashlib.sha1(repr(ident).encode()).hexdigest()[:10]
            while any(c["id"].endswith(digest) for c in cases.values()):
                digest = hashlib.sha1(digest.encode()).hexdigest()[:10]
            short = "mlm" if src.repo == MEGATRON_LM else "bridge"
            cases[key] = {"id": f"{short}-{kind}-{digest}", "kind": kind, **cite, "tags": [tag],
                          "mcore_version": version, "era": era_name(version), **row}
    out = Path(args.out)
    rows = sorted(cases.values(), key=lambda c: c["id"])
    with (out / "cases.jsonl").open("w", encoding="utf-8") as fh:
        for c in rows:
            fh.write(json.dumps(c, sort_keys=True) + "\n")
    (out / "unconverted.json").write_text(json.dumps(unconverted, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    kinds = {}
    for c in rows:
        kinds[(c["kind"], c["era"], c["verdict"])] = kinds.get((c["kind"], c["era"], c["verdict"]), 0) + 1
    print(json.dumps({"cases": len(rows), "unconverted": len(unconverted),
                      "by_kind": {"/".join(k): v for k, v in sorted(kinds.items())}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
