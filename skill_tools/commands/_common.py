"""Options shared by validate/apply/recommend."""

from __future__ import annotations

import argparse

from skill_tools.errors import InputError

INPUT_FORMATS = ("yaml", "json", "python", "hydra", "run_script", "megatron_lm")


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="config file, or - for stdin")
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

    return "-" if args.path == "-" else Path(args.path)


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
