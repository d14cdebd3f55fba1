"""The command-line parsers of Megatron-LM and of Bridge's perf harness, rebuilt from their flag
tables, so any line can be checked against the version it will run on without importing torch.

The tables are data extracted from the upstream parsers themselves (``scripts/`` holds the
extraction scripts; each file names its source tag or commit):

* ``data/megatron_lm_flags/core_v0.X.0.json``: every option ``add_megatron_arguments`` builds
  in ``megatron/training/arguments.py`` at that tag (the dataclass-generated ones included);
* ``data/run_script_flags.json``: every option of ``scripts/performance/argument_parser.py``
  ``parse_cli_args`` at a Megatron-Bridge commit.

:func:`parse` feeds the arguments to an :class:`argparse.ArgumentParser` rebuilt option by option
(same option strings, actions, nargs and choices; ``allow_abbrev=False`` as Megatron-LM sets it),
so what it accepts is what argparse would accept with the upstream table. Inline ``type=`` lambdas
take the domain read from the parser's source (``value_domain``: ``-vp`` any integer or None);
named validators take the value sets the extraction recorded (``CudaGraphScope[x]``,
``is_cuda_graph_impl_valid``, ``bool_arg``); other custom types accept any string.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from skill_tools.config.era import release_tag

DATA = Path(__file__).resolve().parent.parent / "data"


@functools.lru_cache(maxsize=1)
def section_keys() -> dict[str, frozenset[str]]:
    """Bridge ConfigContainer field names per section (``data/config_keys.json``, extracted with ast)."""
    data = json.loads((DATA / "config_keys.json").read_text(encoding="utf-8"))
    return {k: frozenset(v) for k, v in data["sections"].items()}
MEGATRON_LM_TAGS = ("core_v0.16.0", "core_v0.16.1", "core_v0.17.0", "core_v0.18.0", "core_v0.19.0")
RUN_SCRIPT_FILE = DATA / "run_script_flags.json"


@dataclass(frozen=True)
class Option:
    """One option of an upstream parser, as extracted."""

    options: tuple[str, ...]
    dest: str
    action: str
    nargs: Any
    choices: tuple[Any, ...] | None
    type: str | None
    accepts: tuple[str, ...] | None = None  # values a custom type= validator accepts (probed)
    #: An inline ``type=`` read from the parser's source: ("int", ("None",)) = any integer or None.
    domain: tuple[str, tuple[str, ...]] | None = None
    splits_commas: bool = False
    required: bool = False

    @property
    def long(self) -> str:
        return next((o for o in self.options if o.startswith("--")), self.options[0])

    @property
    def takes_value(self) -> bool:
        return self.action in ("store", "append")

    @property
    def is_switch(self) -> bool:
        """A flag without a value (store_true/store_false/--x/--no-x)."""
        return self.action in ("store_true", "store_false", "store_const", "count", "BooleanOptionalAction")


@dataclass(frozen=True, eq=False)
class Table:
    """An upstream parser's options and where they came from."""

    name: str  # "Megatron-LM" | "run_script.py"
    source: dict[str, Any]
    options: tuple[Option, ...]
    by_string: dict[str, Option] = field(default_factory=dict)

    @property
    def label(self) -> str:
        s = self.source
        where = s.get("tag") or str(s.get("commit", ""))[:9]
        return f"{s['repo']} {s['file']}@{where}"

    def option(self, text: str) -> Option | None:
        return self.by_string.get(text)

    def suggest(self, text: str) -> str | None:
        """The closest option string (did-you-mean), or None."""
        longs = [o for o in self.by_string if o.startswith("--")]
        key = text if text.startswith("--") else "--" + text.lstrip("-")
        for swapped in ("--" + key[2:].replace("_", "-"), "--" + key[2:].replace("-", "_")):
            if swapped != key and swapped in self.by_string:
                return swapped  # the other harness's spelling (run_script.py uses '_', Megatron-LM '-')
        close = difflib.get_close_matches(key, longs, n=1, cutoff=0.75)
        return close[0] if close else None

    @functools.cached_property
    def parser(self) -> argparse.ArgumentParser:
        return _build_parser(self)


@functools.lru_cache(maxsize=None)
def _load(path: Path, name: str) -> Table:
    data = json.loads(path.read_text(encoding="utf-8"))
    opts = []
    for row in data["flags"]:
        if row["action"] == "help":
            continue
        probe = row.get("type_probe") or {}
        accepts = row.get("type_accepts")
        if probe and not probe.get("accepts_any", True):
            accepts = probe.get("accepts")
        dom = row.get("value_domain")
        opts.append(Option(
            domain=(dom["kind"], tuple(dom.get("also") or ())) if dom else None,
            options=tuple(row["options"]), dest=row["dest"], action=row["action"], nargs=row["nargs"],
            choices=tuple(row["choices"]) if row.get("choices") is not None else None, type=row.get("type"),
            accepts=tuple(accepts) if accepts else None, splits_commas=bool(probe.get("splits_commas")),
            required=bool(row.get("required")),
        ))
    table = Table(name=name, source=data["source"], options=tuple(opts))
    for opt in opts:
        for s in opt.options:
            table.by_string[s] = opt
    return table


def megatron_lm_tag(version: str) -> str:
    """The tag whose flag table applies to a megatron-core version (0.16.x -> core_v0.16.1 where
    the patch release is newer than 0.16.0; tables for 0.X.0 cover later 0.X patch releases)."""
    return release_tag(version, MEGATRON_LM_TAGS)


@functools.lru_cache(maxsize=None)
def megatron_lm(version: str) -> Table:
    """Megatron-LM's flag table for a megatron-core version."""
    return _load(DATA / "megatron_lm_flags" / f"{megatron_lm_tag(version)}.json", "Megatron-LM")


@functools.lru_cache(maxsize=1)
def run_script() -> Table:
    """Bridge's perf-harness flag table."""
    return _load(RUN_SCRIPT_FILE, "run_script.py")


# --------------------------------------------------------------------------------------------
# the rebuilt parser
# --------------------------------------------------------------------------------------------


class ParseError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would print and exit 2
        raise ParseError(message)


def _value_type(opt: Option):
    if opt.domain is not None:
        kind, also = opt.domain
        cast = int if kind == "int" else float

        def check_domain(text: str):
            if text in also:
                return text
            try:
                return cast(text)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"invalid value {text!r} (expects {'an integer' if kind == 'int' else 'a number'}"
                    + (f" or {', '.join(also)}" if also else "") + ")") from None
        check_domain.__name__ = kind
        return check_domain
    if opt.accepts is not None:
        accepted = set(opt.accepts)

        def check(text: str):
            parts = text.split(",") if opt.splits_commas else [text]
            bad = [p for p in parts if p not in accepted]
            if bad:
                raise argparse.ArgumentTypeError(f"invalid value {bad[0]!r} (accepted: {', '.join(opt.accepts)})")
            return parts if opt.splits_commas else text
        check.__name__ = opt.type or "value"
        return check
    if opt.type == "int":
        return int
    if opt.type == "float":
        return float
    if opt.type == "lower_str":
        return str.lower
    return None


def _build_parser(table: Table) -> argparse.ArgumentParser:
    parser = _Parser(prog=table.name, allow_abbrev=False, add_help=False)
    for opt in table.options:
        kwargs: dict[str, Any] = {"dest": opt.dest}
        strings = opt.options
        if opt.action == "BooleanOptionalAction":  # --x / --no-x; argparse adds the --no- form itself
            kwargs["action"] = argparse.BooleanOptionalAction
            strings = tuple(s for s in opt.options if not s.startswith("--no-")) or opt.options
        elif opt.action in ("store_true", "store_false", "count"):
            kwargs["action"] = opt.action
        elif opt.action == "store_const":
            kwargs.update(action="store_const", const=True)
        else:
            kwargs["action"] = opt.action
            if opt.nargs is not None:
                kwargs["nargs"] = int(opt.nargs) if str(opt.nargs).isdigit() else opt.nargs
            t = _value_type(opt)
            if t is not None:
                kwargs["type"] = t
            if opt.choices is not None:
                kwargs["choices"] = list(opt.choices)
        try:
            parser.add_argument(*strings, **kwargs)
        except argparse.ArgumentError:
            continue  # an option string two upstream actions share: argparse keeps the first
    return parser


@dataclass
class Problem:
    """One argument the upstream parser would refuse."""

    kind: str  # "unknown" | "value"
    option: str  # the option as written (or the stray token)
    message: str
    suggestion: str | None = None
    canonical: Option | None = None


def parse(table: Table, args: Iterable[str]) -> list[Problem]:
    """Every argument of ``args`` (flags only: launcher words and Hydra overrides removed by the
    caller) that the table's parser refuses: unknown options with a did-you-mean, and values
    outside an option's choices, type or nargs. An empty list means argparse accepts the line."""
    args = list(args)
    problems: list[Problem] = []
    known: list[str] = []
    i = 0
    # unknown options first (argparse reports them all at once, without saying which value went where)
    while i < len(args):
        tok = args[i]
        name = tok.split("=", 1)[0]
        if tok.startswith("-") and not _is_number(tok) and table.option(name) is None:
            s = table.suggest(name)
            problems.append(Problem("unknown", name, f"{table.name} has no option {name}"
                                    + (f" (did you mean {s}?)" if s else ""), s))
            i += 1
            while i < len(args) and not (args[i].startswith("-") and not _is_number(args[i])):
                i += 1  # its values go with it
            continue
        known.append(tok)
        i += 1
    # then each known option alone, so a bad value is pinned to its option
    for start, stop in _option_spans(known):
        chunk = known[start:stop]
        try:
            ns, rest = table.parser.parse_known_args(chunk)
        except ParseError as exc:
            problems.append(Problem("value", chunk[0].split("=", 1)[0], str(exc),
                                    canonical=table.option(chunk[0].split("=", 1)[0])))
            continue
        if rest:
            opt = table.option(chunk[0].split("=", 1)[0])
            what = "takes no value" if opt is not None and not opt.takes_value else "takes fewer values"
            problems.append(Problem("value", chunk[0].split("=", 1)[0],
                                    f"{chunk[0].split('=', 1)[0]} {what}: unrecognized arguments: {' '.join(rest)}",
                                    canonical=opt))
    return problems


def _is_number(tok: str) -> bool:
    try:
        float(tok)
        return True
    except ValueError:
        return False


def _option_spans(tokens: list[str]) -> Iterable[tuple[int, int]]:
    starts = [i for i, t in enumerate(tokens) if t.startswith("-") and not _is_number(t)]
    if tokens and (not starts or starts[0] != 0):
        yield 0, starts[0] if starts else len(tokens)  # stray positional tokens
    for n, s in enumerate(starts):
        yield s, starts[n + 1] if n + 1 < len(starts) else len(tokens)


def megatron_lm_tags_with(option: str) -> list[str]:
    """The tags whose Megatron-LM parser has ``option`` (for "exists only in ..." messages)."""
    return [tag for tag in MEGATRON_LM_TAGS
            if _load(DATA / "megatron_lm_flags" / f"{tag}.json", "Megatron-LM").option(option) is not None]


@functools.lru_cache(maxsize=4096)
def known_option(option: str) -> bool:
    """Whether any Megatron-LM parser (any tag) or Bridge's run_script.py has ``option``."""
    name = option.split("=", 1)[0]
    return run_script().option(name) is not None or \
        any(_load(DATA / "megatron_lm_flags" / f"{tag}.json", "Megatron-LM").option(name) is not None
            for tag in MEGATRON_LM_TAGS)
