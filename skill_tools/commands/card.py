"""`skill-tools card sync [--check] [--json] [--root DIR]`: regenerate the card's measured sections
and BENCHMARK.md from benchmarks/results/*.json (``--check``: only report staleness, exit 1)."""

from __future__ import annotations

import argparse
from pathlib import Path

from skill_tools.errors import EXIT_FINDINGS, EXIT_OK
from skill_tools.json_output import MAX_ITEMS, emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = sub.add_parser("sync", help="regenerate card.yaml measured_results/expected_metric_change and BENCHMARK.md",
                       description="Regenerate card.yaml's measured_results and expected_metric_change and "
                                   "BENCHMARK.md from benchmarks/results/*.json.")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when card.yaml or BENCHMARK.md is out of date (for CI)")
    p.add_argument("--root", default=".", help="skill folder holding card.yaml (default: .)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from skill_tools.package.card import sync

    report = sync(Path(args.root), check=args.check)
    if args.json:
        emit("card sync", report.to_dict(), caps={"results_files": MAX_ITEMS, "skipped": MAX_ITEMS})
    else:
        for f in report.files:
            print(f"read {f.rel} ({f.kind}, {f.date})")
        for s in report.skipped:
            print(f"skipped {s['path']}: {s['reason']}")
        if args.check:
            if report.stale:
                for rel in report.stale:
                    print(f"{rel}: out of date with benchmarks/results; run `skill-tools card sync`")
            else:
                print("card.yaml and BENCHMARK.md are up to date")
        else:
            print("wrote " + ", ".join(report.written) if report.written else "nothing to change")
    return EXIT_FINDINGS if report.stale else EXIT_OK
