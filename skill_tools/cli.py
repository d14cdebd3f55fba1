"""The `skill-tools` command line: wiring only.

Each subcommand lives in its own module that exposes ``add_arguments(parser)`` and
``run(args) -> int``. Modules are imported only when their subcommand runs, so a cold
``skill-tools validate`` never pays for torch or megatron-core.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import sys
import warnings
from typing import Sequence

from skill_tools import __version__
from skill_tools.commands._common import examples_epilog
from skill_tools.errors import EXIT_BAD_INPUT, InputError, SkillToolsError, SkillToolsWarning

# name -> (module, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "lint": ("skill_tools.commands.lint", "check the skill package itself (SKILL.md, card.yaml, evals.json)"),
    "validate": ("skill_tools.commands.validate", "check a config's CUDA-graph settings against the rule catalog"),
    "apply": ("skill_tools.commands.apply", "write era-correct CUDA-graph overrides into a config"),
    "recommend": ("skill_tools.commands.recommend", "recommend a CUDA-graph impl/scope for a config"),
    "logs": ("skill_tools.commands.logs", "parse, compare and diagnose Megatron training logs"),
    "bench": ("skill_tools.commands.bench", "eager-vs-graph performance harness on a GPU"),
    "precheck": ("skill_tools.commands.precheck", "profile eager steps and predict whether graphs pay off"),
    "evals": ("skill_tools.commands.evals", "score agent answers against evals/evals.json"),
    "card": ("skill_tools.commands.card", "generate card.yaml results and BENCHMARK.md from results files"),
}


def _available() -> dict[str, tuple[str, str]]:
    """Subcommands whose module exists in this install."""
    out = {}
    for name, (mod, help_) in COMMANDS.items():
        if importlib.util.find_spec(mod) is not None:
            out[name] = (mod, help_)
    return out


def build_parser(commands: dict[str, tuple[str, str]]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skill-tools",
        description="Helpers for CUDA graphs in Megatron-Core / Megatron Bridge.",
    )
    parser.add_argument("--version", action="version", version=f"skill-tools {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (mod, help_) in commands.items():
        p = sub.add_parser(name, help=help_, description=help_, formatter_class=argparse.RawDescriptionHelpFormatter)
        p.set_defaults(_module=mod)
        importlib.import_module(mod).add_arguments(p)
        p.epilog = examples_epilog(name, p.epilog)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _available()
    # Build only the parser of the requested command: keeps start-up cheap.
    if argv and argv[0] in commands:
        parser = build_parser({argv[0]: commands[argv[0]]})
    else:
        parser = build_parser(commands)
    args = _parse(parser, argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    module = importlib.import_module(args._module)
    _warn_in_one_line(args.command)
    as_json = bool(getattr(args, "json", False))
    try:
        refused = module.check_args(args) if hasattr(module, "check_args") else None
        if refused:
            raise InputError(refused.split(":", 1)[0], refused.split(":", 1)[-1].strip())
        return int(module.run(args))
    except SkillToolsError as exc:  # one line on stderr; under --json also the error document on stdout
        from skill_tools.commands._common import report_error

        return report_error(args.command, exc, exc.exit_code, as_json=as_json)
    except KeyboardInterrupt as exc:
        if as_json:
            from skill_tools.commands._common import report_error

            return report_error(args.command, exc, 130, as_json=True, kind="interrupted", message="interrupted")
        print(f"skill-tools {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`skill-tools validate x | head`): stop quietly, like other CLIs
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args``; under --json a refused command line also gets the error document."""
    if "--json" not in argv:
        return parser.parse_args(argv)
    import contextlib
    import io
    import json

    from skill_tools.commands._common import error_document

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return parser.parse_args(argv)
    except SystemExit as exc:
        sys.stderr.write(err.getvalue())
        if exc.code not in (0, None):
            lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
            message = lines[-1].split(": error: ", 1)[-1] if lines else "invalid arguments"
            command = argv[0] if argv and argv[0] in COMMANDS else "skill-tools"
            print(json.dumps(error_document(command, SystemExit(message), 2, "usage"), indent=2))
        raise


def refusal(argv: Sequence[str]) -> str | None:
    """What ``skill-tools`` says about a command line without running it: None when its parser
    accepts ``argv`` (``--help`` included), else the parser's error. The eval scorer judges the
    commands an answer tells the user to run with this, the real parser (arguments are parsed,
    never acted on: no command runs, no file is opened)."""
    import contextlib
    import io

    argv = list(argv)
    parser = _parser_for(argv[0] if argv and argv[0] in COMMANDS else "")
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code in (0, None):
            return None
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
        return lines[-1] if lines else "invalid arguments"
    if not getattr(args, "command", None):
        return "no subcommand given"
    module = importlib.import_module(args._module)
    return module.check_args(args) if hasattr(module, "check_args") else None  # checks made before it runs


@functools.lru_cache(maxsize=None)
def _parser_for(command: str) -> argparse.ArgumentParser:
    commands = _available()
    return build_parser({command: commands[command]} if command in commands else commands)


_DEFAULT_SHOWWARNING = warnings.showwarning


def _warn_in_one_line(command: str) -> None:
    """Print the package's own warnings as ``skill-tools CMD: warning: ...`` (other warnings as
    Python prints them). Installed afresh for each call, never wrapped around an earlier one."""

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, SkillToolsWarning):
            print(f"skill-tools {command}: warning: {message}", file=sys.stderr)
        else:
            _DEFAULT_SHOWWARNING(message, category, filename, lineno, file, line)

    warnings.showwarning = show
