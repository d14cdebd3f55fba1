"""`skill-tools evals score|run|export`: score agent answers against evals/evals.json, collect them
first, or export the task set (commands/evals_export.py).

Exit codes: 0 gate passed, 1 gate failed (mean score of the gated condition below
--threshold), 2 bad input.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
from pathlib import Path

from skill_tools.errors import EXIT_FINDINGS, EXIT_OK, InputError
from skill_tools.harness import engines
from skill_tools.json_output import MAX_ITEMS, emit

DEFAULT_EVALS = "evals/evals.json"
DEFAULT_CACHE = Path.home() / ".cache" / "skill-tools" / "evals-exec"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="evals_command", metavar="ACTION")
    score = sub.add_parser("score", help="score an answers file (JSONL: id, answer, condition, agent)",
                           description="Score answers: extracted config, rubric checks with explanations, "
                                       "validation, optional GPU execution; per task, behavior, condition, uplift.")
    score.add_argument("--answers", required=True, help="answers file, one JSON object per line")
    _common(score)

    run = sub.add_parser("run", help="ask an agent CLI every task, then score its answers",
                         description="Call --agent-cmd once per task and condition in a copy of the task's workspace "
                                     "(the question on stdin, in a file and an environment variable, never in "
                                     "the command line), write the answers file, then score it.")
    run.add_argument("--agent-cmd", required=True,
                     help="the agent's command line, e.g. 'claude -p' or 'my-agent --prompt-file {question_file}'; "
                          "started directly (no shell). The question arrives on stdin, as the file {question_file} "
                          "($SKILL_EVAL_QUESTION_FILE) and in $SKILL_EVAL_QUESTION, never in the command line; "
                          "placeholders {question_file} {workspace} {id} {condition} {skill_dir}; the agent runs "
                          "in {workspace}, a copy of the task's files, and the files it changes there are scored")
    run.add_argument("--allow-shell", action="store_true",
                     help="accept a wrapper you wrote that runs through a shell or interpreter (sh -c, python -c, "
                          "env -S); refused by default as defence in depth (task text never reaches it either way)")
    run.add_argument("--with-skill", metavar="DIR", help="run the with_skill condition with this skill folder")
    run.add_argument("--without-skill", action="store_true", help="run the without_skill condition")
    run.add_argument("--ids", help="comma-separated task ids (default: all)")
    run.add_argument("--out", help="answers file to write (default: out/evals-answers-<timestamp>.jsonl)")
    run.add_argument("--timeout", type=float, default=600, help="seconds per agent call (default 600)")
    run.add_argument("--retries", type=int, default=1, help="retries per call on failure/timeout (default 1)")
    run.add_argument("--agent-name", default="", help="label stored with each answer")
    _common(run)
    from skill_tools.commands import evals_export

    evals_export.add_parser(sub)
    replay = sub.add_parser("judge-replay", help="a --judge-cmd that answers from recorded verdicts (batch judges)",
                            description="Protocol skill-tools-judge/1 from a file: reads one request on stdin "
                                        "and prints the verdicts recorded for that exact answer "
                                        "(JSONL {key, verdicts}; keys from `evals score --judge-export`); "
                                        "exit 2 when none is recorded.")
    replay.add_argument("verdicts", metavar="VERDICTS", help="recorded verdicts, one JSON object per line")
    via = sub.add_parser("judge-via", help="a --judge-cmd that asks a model through an agent CLI (claude -p, …)",
                         description="Protocol skill-tools-judge/1 through an agent CLI: reads one request on stdin, "
                                     "sends the packaged judge instruction and the request to AGENT on its stdin "
                                     "(no shell), prints the verdicts found in its reply; exit 2 with the reason "
                                     "when there are none. E.g. --judge-cmd 'skill-tools evals judge-via -- claude -p'.")
    via.add_argument("--timeout", type=float, default=110.0, help="seconds for the agent's reply (default 110; "
                                                                    "keep it under --judge-timeout)")
    via.add_argument("agent", nargs=argparse.REMAINDER, metavar="-- AGENT [ARGS…]", help="the agent's command line")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--evals", default=DEFAULT_EVALS, help=f"task set (default {DEFAULT_EVALS})")
    p.add_argument("--threshold", type=float, default=0.7, help="gate: minimum mean score (default 0.7)")
    p.add_argument("--json", action="store_true", help="print the full JSON report")
    p.add_argument("--markdown", metavar="FILE", help="also write the Markdown report here")
    p.add_argument("--json-out", metavar="FILE", help="also write the JSON report here")
    p.add_argument("--execute", action="store_true",
                   help="run each distinct extracted config on the GPU harness (skipped without a GPU)")
    p.add_argument("--engine", choices=engines.names(), default=engines.DEFAULT,
                   help="--execute engine: " + engines.help_text())
    p.add_argument("--megatron-lm", metavar="PATH",
                   help="engine megatron-lm: a Megatron-LM checkout of the installed megatron-core's tag "
                        "(default: megatron.training from the installed wheel, 0.18+)")
    p.add_argument("--mcore-version", help="engine megatron-lm: the megatron-core version it runs "
                                           "(default: the installed one); tasks of the other era are skipped")
    p.add_argument("--dry-run", action="store_true",
                   help="with --execute: score, and list per answer what would run (the exact Megatron-LM "
                        "flags for engine megatron-lm) without running anything")
    p.add_argument("--exec-steps", type=int, default=6, help="training steps per execution (default 6)")
    p.add_argument("--exec-timeout", type=int, default=300, help="seconds per execution (default 300)")
    p.add_argument("--cache-dir", default=str(DEFAULT_CACHE), help="execution cache, keyed by config hash")
    p.add_argument("--judge-cmd", metavar="CMD",
                   help="a judge program (protocol skill-tools-judge/1: one JSON request on stdin per answer, "
                        "JSON verdicts per assertion on stdout; see evals/README.md); started directly, its "
                        "verdicts are reported beside the deterministic scores and never change them")
    p.add_argument("--judge-timeout", type=float, default=120.0, help="seconds per judge call (default 120)")
    p.add_argument("--judge-jobs", type=int, default=1, help="judge calls at once (default 1)")
    p.add_argument("--judge-export", metavar="FILE",
                   help="write every answer's judge request to FILE (JSONL {key, request}) for a batch judge; "
                        "its verdicts come back with --judge-cmd 'skill-tools evals judge-replay VERDICTS'")


def run(args: argparse.Namespace) -> int:
    from skill_tools.evaluation import report as rep
    from skill_tools.evaluation.score import score_all
    from skill_tools.evaluation.tasks import load_answers, load_tasks

    if not getattr(args, "evals_command", None):
        raise InputError("skill-tools evals", "missing action", hint="use `evals score --answers FILE` or `evals run --agent-cmd ...`")
    if args.evals_command == "export":
        from skill_tools.commands import evals_export

        return evals_export.run(args)
    if args.evals_command == "judge-via":
        from skill_tools.evaluation.judge_via import main as via

        return via(args.agent[1:] if args.agent[:1] == ["--"] else args.agent, timeout_s=args.timeout)
    if args.evals_command == "judge-replay":
        from skill_tools.evaluation.judge_replay import main as replay

        return replay([args.verdicts])
    if args.judge_jobs < 1:
        raise InputError("--judge-jobs", f"{args.judge_jobs} is below 1", hint="e.g. --judge-jobs 8")
    if not 0.0 <= args.threshold <= 1.0:
        raise InputError("--threshold", f"{args.threshold} is outside 0..1", hint="e.g. --threshold 0.7")
    taskset = load_tasks(args.evals)
    if args.evals_command == "run":
        answers_path = _collect(args, taskset)
        print(f"answers written to {answers_path}", file=sys.stderr if args.json else sys.stdout)
    else:
        answers_path = Path(args.answers)
    records = load_answers(answers_path)
    executor = _executor(args) if args.execute or args.dry_run else None
    judge_argv = None
    if args.judge_cmd:
        from skill_tools.evaluation.agent_cmd import parse_template

        judge_argv = parse_template(args.judge_cmd, flag="--judge-cmd")
    from skill_tools.cli import refusal

    report = score_all(taskset, records, threshold=args.threshold, executor=executor, judge_argv=judge_argv,
                       refusal=refusal, judge_timeout_s=args.judge_timeout, judge_jobs=args.judge_jobs,
                       judge_export=args.judge_export)
    if args.judge_export:
        print(f"judge requests written to {args.judge_export} ({report['judge_requests_exported']} answers)",
              file=sys.stderr if args.json else sys.stdout)
    if args.dry_run:
        plans = [{"id": a["id"], "condition": a["condition"], "line": a["line"], **_plan_entry(a)}
                 for a in report["answers"]]
        if args.json:
            emit(f"evals {args.evals_command}", {"engine": args.engine, "answers": plans}, kind="execution-plan",
                 caps={"answers": MAX_ITEMS}, indent=1)
        else:
            print(_plan_text(plans))
        return EXIT_OK
    report["answers_file"] = str(answers_path)
    report.update(_provenance(args))
    if args.markdown:
        _write(args.markdown, rep.markdown(report, title=f"Eval scores: {Path(answers_path).name}"), "--markdown")
    if args.json_out:
        from skill_tools.output_file import portable_paths

        _write(args.json_out, rep.to_json(portable_paths(report, Path(args.json_out).parent)), "--json-out")
    if args.json:  # bounded on standard output; --json-out FILE keeps every answer
        emit(f"evals {args.evals_command}", report, kind="scores",
             caps={"answers": MAX_ITEMS, "rejected_answers": MAX_ITEMS})
    else:
        print(rep.text_table(report))
    return EXIT_OK if report["gate"]["passed"] else EXIT_FINDINGS


def _executor(args: argparse.Namespace):
    """The --execute engine, wired as ``skill-tools bench`` wires it (InputError, exit 2, when engine
    megatron-lm finds no megatron.training for the megatron-core it runs)."""
    from skill_tools.evaluation.execute import Executor

    common = dict(steps=args.exec_steps, timeout_s=args.exec_timeout, engine=args.engine, plan_only=args.dry_run)
    engine = engines.get(args.engine)
    if not engine.runs_user_loop:
        return Executor(Path(args.cache_dir), **common)
    from skill_tools.config.era import resolve_era

    era = resolve_era(args.mcore_version)
    # What the engine needs besides the GPU (megatron.training for engine megatron-lm), checked before scoring.
    return Executor(Path(args.cache_dir), era=era, training=engine.locate(era, megatron_lm=args.megatron_lm), **common)


def _plan_entry(a: dict) -> dict:
    """What --execute would do for one scored answer: its plan, or why nothing would run."""
    ex = a.get("execution") or {}
    if "plan" in ex:
        return {"plan": ex["plan"], "config_hash": ex.get("config_hash"),
                **({"refused_by": ex["refused_by"]} if "refused_by" in ex else {})}
    if a.get("problem") or a.get("unsafe"):
        why = a.get("problem") or "; ".join(f["message"] for f in a.get("findings", [])
                                            if f.get("kind") in ("security", "limit"))
        return {"skipped": f"unsafe answer: nothing from it is executed ({why[:200]})", "unsafe": True}
    if ex.get("skipped"):
        return {"skipped": ex["skipped"]}
    return {"skipped": "not executed: the task has no executes check"}


def _plan_text(plans: list[dict]) -> str:
    import shlex

    out = []
    for p in plans:
        head = f"{p['id']} [{p['condition']}] line {p['line']}"
        if "plan" not in p:
            out.append(f"{head}: {p['skipped']}")
            continue
        plan = p["plan"]
        if "refused" in plan:
            out.append(f"{head}: refused before any GPU time: {plan['refused']}"
                       + (f"\n  caused by the {p['refused_by']}" if p.get("refused_by") else ""))
            continue
        out.append(f"{head}: engine {plan['engine']}")
        for v in plan["variants"]:
            flags = v.get("megatron_lm_flags") or v.get("bridge_overrides")
            out.append(f"  {v['name']}" + (f": {shlex.join(flags)}" if flags else ""))
    return "\n".join(out)


def _provenance(args: argparse.Namespace) -> dict:
    """Who scored what: the evaluator, the task set's digest and, for `evals run`, the agent that answered.

    BENCHMARK.md reports per-agent rows only for reports that carry ``agent_run``.
    """
    import hashlib
    import shlex

    from skill_tools import __version__

    out: dict = {"evaluator": f"skill-tools evals {__version__}",
                 "dataset_digest": "sha256:" + hashlib.sha256(Path(args.evals).read_bytes()).hexdigest()}
    if args.evals_command == "run":
        program = Path(shlex.split(args.agent_cmd)[0]).name
        out["agent_run"] = {"agent": args.agent_name or program, "program": program,
                            "conditions": (["with_skill"] if args.with_skill else [])
                            + (["without_skill"] if args.without_skill else [])}
    return out


def _collect(args: argparse.Namespace, taskset) -> Path:
    from skill_tools.evaluation.agent_run import collect

    conditions: list[tuple[str, str | None]] = []
    if args.with_skill:
        skill = Path(args.with_skill)
        if not (skill / "SKILL.md").is_file():
            raise InputError("--with-skill", f"{skill} has no SKILL.md", hint="pass the skill folder")
        conditions.append(("with_skill", str(skill.resolve())))
    if args.without_skill:
        conditions.append(("without_skill", None))
    if not conditions:
        raise InputError("skill-tools evals run", "no condition chosen", hint="pass --with-skill DIR and/or --without-skill")
    tasks = list(taskset.tasks.values())
    if args.ids:
        wanted = [i.strip() for i in args.ids.split(",") if i.strip()]
        unknown = [i for i in wanted if i not in taskset.tasks]
        if unknown:
            raise InputError("--ids", f"unknown task id(s): {', '.join(unknown)}", hint=f"ids are in {args.evals}")
        tasks = [taskset.tasks[i] for i in wanted]
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else Path("out") / f"evals-answers-{stamp}.jsonl"
    if not args.out:
        out.parent.mkdir(exist_ok=True)
    collect(tasks, args.agent_cmd, conditions=conditions, out_path=out, timeout_s=args.timeout,
            retries=max(0, args.retries), agent=args.agent_name, allow_shell=args.allow_shell,
            warn=lambda msg: print(msg, file=sys.stderr))
    return out


def _write(path: str, text: str, flag: str) -> None:
    """The careful writer of ``apply``: atomic; a folder, FIFO or device is refused (exit 2)."""
    from skill_tools.output_file import write_text

    try:
        write_text(path, text, flag=flag)
    except OSError as exc:
        raise InputError(flag, f"cannot write {path}: {exc.strerror or exc}") from None
