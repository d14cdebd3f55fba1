"""`skill-tools evals export (--trigger-set | --nvskills) [--evals PATH] [--out FILE]`.

``--trigger-set`` writes Anthropic skill-creator's trigger eval set (``[{query, should_trigger}]``,
for its ``run_eval.py --eval-set`` / ``run_loop.py``); ``--nvskills`` writes the plain NVSkills
task list NVIDIA's skills catalog ships. Both from evals/evals.json (any NVSkills layout).
"""

from __future__ import annotations

import argparse
import json
import sys

from skill_tools.errors import EXIT_OK, InputError

DEFAULT_EVALS = "evals/evals.json"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write the task set as a skill-creator trigger set or a plain NVSkills list",
                       description="Export evals/evals.json: --trigger-set for Anthropic skill-creator's "
                                   "run_eval.py/run_loop.py ([{query, should_trigger}], positives and negatives), "
                                   "--nvskills for the plain task list NVIDIA's skills catalog reads.")
    fmt = p.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--trigger-set", dest="export_format", action="store_const", const="trigger-set",
                     help="[{query, should_trigger}] (skill-creator)")
    fmt.add_argument("--nvskills", dest="export_format", action="store_const", const="nvskills",
                     help="[{id, question, expected_skill, expected_script, ground_truth, expected_behavior, "
                          "should_trigger}] (NVSkills)")
    p.add_argument("--evals", default=DEFAULT_EVALS, help=f"task set (default {DEFAULT_EVALS})")
    p.add_argument("--out", metavar="FILE", help="write here instead of standard output")


def run(args: argparse.Namespace) -> int:
    from skill_tools.evaluation.export import nvskills_list, trigger_set
    from skill_tools.evaluation.tasks import load_tasks

    taskset = load_tasks(args.evals)
    data = trigger_set(taskset) if args.export_format == "trigger-set" else nvskills_list(taskset)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        from skill_tools.output_file import write_text

        try:
            out = write_text(args.out, text, flag="--out")
        except OSError as exc:
            raise InputError(args.out, f"cannot write: {exc.strerror or exc}", hint="pass a writable --out path") from None
        if out is None:  # "-": written to standard output
            return EXIT_OK
        positives = sum(1 for t in taskset.tasks.values() if t.should_trigger)
        print(f"wrote {out}: {len(data)} tasks ({positives} should trigger, {len(data) - positives} should not)",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK
