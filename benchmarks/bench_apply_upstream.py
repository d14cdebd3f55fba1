"""``apply --out`` on upstream's own files: only the graph settings change, and the result reads back.

    git --git-dir=BRIDGE.git show v0.6.0:src/megatron/bridge/recipes/... > DIR/...   (any files)
    python benchmarks/bench_apply_upstream.py DIR --label "Megatron-Bridge v0.6.0" [--out FILE]

For each file and each of three graph settings, ``skill-tools apply FILE --impl I [--scope S]
--out OUT`` runs in-process; the verdict per file records the exit status, whether every line
of the input that holds no changed key is still in the output in the same order (``kept``), how
many lines changed, and whether ``skill-tools validate OUT`` reads the output (exit 0 or 1).
Only verdicts and the files' names are written, never their text.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from fuzz_inputs import run_cli  # noqa: E402

SETTINGS = [("full_iteration", None), ("transformer_engine", "attn,mlp"), ("none", None)]


def judge(path: Path, impl: str, scope: str | None, scratch: Path) -> dict:
    out = scratch / ("out" + path.suffix)
    out.unlink(missing_ok=True)
    argv = ["apply", str(path), "--impl", impl, *(["--scope", scope] if scope else []), "--out", str(out)]
    applied = run_cli(argv)
    row = {"impl": impl, "scope": scope, "apply_rc": applied.rc}
    if applied.rc != 0:
        reason = (applied.stderr.strip().splitlines() or applied.stdout.strip().splitlines() or [""])[-1]
        row["reason"] = reason.replace(str(path.parent) + "/", "")[-200:]  # the file's name, not this machine's folder
        return row
    before, after = path.read_text().splitlines(), out.read_text().splitlines()
    changed_keys = {k.split(".")[-1] for k in _changed(applied.stdout)}
    untouched = [ln for ln in before if not any(k in ln for k in changed_keys)]
    rest = iter(after)
    row["kept"] = all(any(line == got for got in rest) for line in untouched)  # a subsequence, in order
    row["lines_changed"] = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in
                               difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes() if tag != "equal")
    row["validate_rc"] = run_cli(["validate", str(out)]).rc
    return row


def _changed(stdout: str) -> list[str]:
    """Keys named in the diff apply printed (``+  key: v`` / ``+cfg.model.key = v`` / flags)."""
    import re

    keys = set()
    for line in stdout.splitlines():
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
            keys.update(k.lstrip("-") for k in re.findall(r"--[\w-]+|[A-Za-z_]\w*(?=\s*[:=])", line[1:]))
    return [k for k in keys if k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--label", required=True, help="where the files came from (repository and tag)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="skill-tools-apply-upstream-"))
    files = sorted(p for p in args.folder.iterdir() if p.is_file())
    rows = []
    for path in files:
        for impl, scope in SETTINGS:
            rows.append({"file": path.name, **judge(path, impl, scope, scratch)})
    applied = [r for r in rows if r["apply_rc"] == 0]
    summary = {"files": len(files), "runs": len(rows), "applied": len(applied),
               "refused": sum(r["apply_rc"] == 2 for r in rows), "illegal_result": sum(r["apply_rc"] == 1 for r in rows),
               "kept_every_other_line": sum(bool(r.get("kept")) for r in applied),
               "output_reads_back": sum(r.get("validate_rc") in (0, 1) for r in applied)}
    doc = {"benchmark": "apply-upstream", "source": args.label, "totals": summary, "runs": rows}
    text = json.dumps(doc, indent=1) + "\n"
    if args.out:
        args.out.write_text(text)
    print(json.dumps(summary))
    return 0 if summary["kept_every_other_line"] == summary["output_reads_back"] == len(applied) else 1


if __name__ == "__main__":
    sys.exit(main())
