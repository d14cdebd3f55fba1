"""Options shared by validate/apply/recommend."""

from __future__ import annotations

import argparse
import re

from skill_tools.errors import InputError

INPUT_FORMATS = ("yaml", "json", "python", "hydra", "run_script", "megatron_lm")

#: What each command's --help ends with: examples to copy.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "lint": ("skill-tools lint", "skill-tools lint --json"),
    "validate": ("skill-tools validate recipe.yaml", "skill-tools validate train.sh --mcore-version 0.16.1",
                 "echo 'model.cuda_graph_impl=local' | skill-tools validate -"),
    "apply": ("skill-tools apply recipe.yaml --impl transformer_engine --scope attn,mlp",
              "skill-tools apply train.sh --impl full_iteration --in-place",
              "skill-tools apply recipe.py --impl local --scope full_iteration --format hydra --out overrides.txt"),
    "recommend": ("skill-tools recommend recipe.yaml", "skill-tools recommend train.sh --json"),
    "logs": ("skill-tools logs run.log", "skill-tools logs eager.log graph.log --json"),
    "bench": ("skill-tools bench --dry-run", "skill-tools bench --workload moe --variants eager,te:attn+moe_router+moe_preprocess"),
    "precheck": ("skill-tools precheck --results bench-out/results.json", "skill-tools precheck --workload dense --size tiny"),
    "evals": ("skill-tools evals score --answers answers.jsonl", "skill-tools evals score --answers answers.jsonl --json"),
    "card": ("skill-tools card sync --check",),
}


def examples_epilog(command: str, epilog: str | None) -> str | None:
    """``epilog`` followed by the command's examples (for argparse's raw-text epilog)."""
    lines = EXAMPLES.get(command)
    if not lines:
        return epilog
    text = "examples:\n" + "\n".join(f"  {line}" for line in lines)
    return f"{epilog}\n\n{text}" if epilog else text


def add_config_arguments(parser: argparse.ArgumentParser, path_optional: bool = False) -> None:
    parser.add_argument("path", nargs="?" if path_optional else None, help="config file, or - for stdin")
    parser.add_argument("--input-format", choices=INPUT_FORMATS, help="input format (default: detected)")
    parser.add_argument("--mcore-version", help="megatron-core version to check against, X.Y[.Z] (default: installed)")
    parser.add_argument("--te-version", help="Transformer Engine version (default: installed, if any)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="environment variable for the run (repeatable; default: this process's environment)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def config_source(args: argparse.Namespace):
    """The PATH argument as the API wants it: ``-`` (stdin) or a Path, never config text, so a
    missing file is reported as such rather than read as a one-line config."""
    from pathlib import Path

    if args.path == "-":
        return "-"
    refuse_non_path(args.path, getattr(args, "command", None) or "validate")
    return Path(args.path)


def refuse_non_path(path: str, command: str) -> None:
    """PATH that is no file but reads as what belongs in one (``key=value``, ``--flag``): say so,
    and how to pass it, instead of "no such file"."""
    import os
    import re

    if os.path.lexists(path):
        return
    if re.match(r"^[+~]{0,2}[A-Za-z_][\w./@-]*=", path):
        raise InputError(path, "not a file: this looks like a Hydra override",
                         hint=f"put overrides in a file, or pipe them: echo '{path[:60]}' | skill-tools {command} -")
    if path.startswith("--") and len(path) > 2:
        raise InputError(path, "not a file: this looks like a command-line flag",
                         hint=f"put the launch command in a file (a .sh script), or pipe it to: skill-tools {command} -")


def env_from(args: argparse.Namespace) -> dict[str, str]:
    """Graph-relevant variables from the process environment, overridden by --env."""
    import os

    from skill_tools.config.model import GRAPH_ENV_VARS

    env = {k: os.environ[k] for k in GRAPH_ENV_VARS if k in os.environ}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError("--env", f"expected KEY=VALUE, got {item!r}")
        env[key] = value
    return env


# --------------------------------------------------------------------------------------------
# errors: one line on stderr, and under --json a document on stdout (schemas/error.schema.json)
# --------------------------------------------------------------------------------------------

#: Version of the --json error document (skill_tools/schemas/error.schema.json).
ERROR_SCHEMA_VERSION = 1


def error_document(command: str, exc: BaseException, exit_code: int, kind: str | None = None) -> dict:
    """The --json error document for ``exc`` (valid against ``schemas/error.schema.json``)."""
    from skill_tools.errors import MissingExtraError, NoGpuError

    if kind is None:
        kind = ("input" if isinstance(exc, InputError) else "missing-extra" if isinstance(exc, MissingExtraError)
                else "no-gpu" if isinstance(exc, NoGpuError) else "error")
    error = {"command": command, "kind": kind, "exit_code": exit_code, "message": one_line(str(exc))}
    if isinstance(exc, InputError):
        error.update(source=exc.source, line=exc.line, hint=exc.hint)
    if isinstance(exc, MissingExtraError):
        error["extra"] = exc.extra
    return {"schema_version": ERROR_SCHEMA_VERSION, "ok": False, "error": error}


def one_line(text: str) -> str:
    """``text`` on one line, whatever a parser's message held (newlines, tabs, runs of blanks)."""
    return " ".join(text.split())


def report_error(command: str, exc: BaseException, exit_code: int, *, as_json: bool, kind: str | None = None,
                 message: str | None = None) -> int:
    """Print ``exc`` as ``skill-tools COMMAND: error: ...`` on stderr and, for --json, the error
    document on stdout; returns ``exit_code``. Every command's errors go through here (cli.main)."""
    import json
    import sys

    line = one_line(message if message is not None else str(exc))
    print(f"skill-tools {command}: error: {line}", file=sys.stderr)
    if as_json:
        doc = error_document(command, exc, exit_code, kind)
        if message is not None:
            doc["error"]["message"] = line
        print(json.dumps(doc, indent=2))
    return exit_code


def scope_and_path(args: argparse.Namespace) -> None:
    """``--scope`` as one comma-separated string, whichever way it was written: ``attn,mlp``, or
    ``attn mlp`` as Megatron-LM's ``--cuda-graph-scope`` takes it. A list option that takes several
    words also takes a PATH written after it (``--scope attn mlp recipe.yaml``): a last word that
    is no scope name is that PATH."""
    words = [w for item in (args.scope or []) for w in item.split(",") if w.strip()]
    if args.path is None and words and not re.fullmatch(r"[a-z_]+", words[-1]):
        args.path = words.pop()
    if args.path is None:
        raise InputError("path", "no config file given", hint="pass the config file (or - for stdin) before --scope")
    args.scope = ",".join(w.strip() for w in words) if args.scope is not None else None
