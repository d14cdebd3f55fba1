"""`skill-tools lint [ROOT] [--as-installed DIR] [--json]`: check the skill package itself.

Errors fail (exit 1); warnings (what NVIDIA's skills catalog's evaluator would report) and info
notes (a check that does not apply here, and why) are printed but do not.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skill_tools.errors import EXIT_FINDINGS, EXIT_OK, InputError
from skill_tools.json_output import MAX_ITEMS, emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("root", nargs="?", default=None, help="skill folder holding SKILL.md (default: .)")
    parser.add_argument("--as-installed", metavar="DIR",
                        help="lint the skill installed at DIR (e.g. ~/.claude/skills/NAME, .agents/skills/NAME, "
                             "a symlink is fine): its folder name must equal the SKILL.md name")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    from skill_tools.package.lint import lint

    if args.as_installed and args.root and Path(args.root).resolve() != Path(args.as_installed).resolve():
        raise InputError("--as-installed", f"{args.as_installed} is not the folder {args.root}",
                         hint="pass the installed folder once: `skill-tools lint --as-installed DIR`")
    root = Path(args.as_installed or args.root or ".")
    report = lint(root, as_installed=bool(args.as_installed))
    if args.json:
        emit("lint", report.to_dict(), caps={"findings": MAX_ITEMS})
    else:
        for finding in report.findings:
            print(finding)
        n = len(report.errors)
        notes = len(report.findings) - n
        status = "clean" if report.ok else f"{n} problem{'s' if n != 1 else ''}"
        print(f"{report.root}: {status}" + (f" ({notes} warning/info note{'s' if notes != 1 else ''})" if notes else ""))
    return EXIT_OK if report.ok else EXIT_FINDINGS
