"""`skill-tools lint [ROOT] [--json]`: check the skill package itself."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from skill_tools.errors import EXIT_FINDINGS, EXIT_OK


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("root", nargs="?", default=".", help="skill folder holding SKILL.md (default: .)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from skill_tools.package_lint import lint

    report = lint(Path(args.root))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        for finding in report.findings:
            print(finding)
        n = len(report.findings)
        print(f"{report.root}: " + ("clean" if report.ok else f"{n} problem{'s' if n != 1 else ''}"))
    return EXIT_OK if report.ok else EXIT_FINDINGS
