"""Checks of command lines and overrides against the upstream parsers of the chosen version:
Megatron-LM flags (``megatron/training/arguments.py`` at the era's tag), Bridge perf-harness
flags (``scripts/performance/argument_parser.py``) and Hydra's override grammar.

A flag the parser does not know makes the launch fail ("unrecognized arguments") or, in the
harness, is silently dropped by its wrapper; a Hydra value with a top-level comma is a sweep
(``-m`` multirun), not a list. Each finding names the option as written, the line, and the
spelling the parser takes.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from skill_tools.config import cli_tables
from skill_tools.config import flags as flag_tables
from skill_tools.rules.context import Ctx

#: Graph options whose values other catalog rules already judge (with an era-correct fix).
_GRAPH_VALUE_RULES = {"--cuda-graph-impl", "--cuda-graph-scope", "--cuda-graph-modules", "--inference-cuda-graph-scope"}
#: Megatron-LM entry points that take exactly ``add_megatron_arguments``'s flags (others, such as
#: the inference examples, add their own through ``extra_args_provider``).
_PLAIN_ENTRY = re.compile(r"(^|/)pretrain_\w+\.py$")


def _line_of(ctx: Ctx, option: str) -> int | None:
    return next((ln for tok, ln in ctx.cfg.argv if tok.split("=", 1)[0] == option), None)


def _located(ctx: Ctx, option: str, data: dict[str, Any]) -> dict[str, Any]:
    line = _line_of(ctx, option)
    data["location"] = f"{ctx.cfg.source}:{line}" if line is not None else ctx.cfg.source
    return data


def _flag_problems(ctx: Ctx, table: cli_tables.Table) -> list[cli_tables.Problem]:
    args = [tok for tok, _ in ctx.cfg.argv]
    return cli_tables.parse(table, args)


def megatron_lm_flag_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.cfg.fmt != "megatron_lm" or not ctx.cfg.argv:
        return
    table = cli_tables.megatron_lm(ctx.era.mcore_version)
    plain = ctx.cfg.script is None or bool(_PLAIN_ENTRY.search(ctx.cfg.script))
    for p in _flag_problems(ctx, table):
        if p.kind != "unknown":
            continue
        elsewhere = [t for t in cli_tables.megatron_lm_tags_with(p.option) if t != cli_tables.megatron_lm_tag(ctx.era.mcore_version)]
        note = f"; it exists in {', '.join(elsewhere)}" if elsewhere else ""
        suggestion = flag_tables.MEGATRON_LM_RENAMES.get(p.option[2:])
        suggestion = "--" + suggestion if suggestion and table.option("--" + suggestion) else p.suggestion
        said = f" (did you mean {suggestion}?)" if suggestion else ""
        switch = _switch_default(table, p.option)
        if switch is not None:
            said, suggestion = switch, None
        yield _located(ctx, p.option, {
            "option": p.option, "tag": table.source["tag"],
            "suggestion": said, "elsewhere": note,
            "severity": None if plain else "warning",
            "script": "" if plain else f" ({ctx.cfg.script} may add options of its own)",
            "keys": list(flag_tables.megatron_lm_flag(p.option[2:]).keys),
            "fix": {"remove": p.option} if not suggestion else {"replace": f"{p.option} -> {suggestion}"},
        })


def _switch_default(table: cli_tables.Table, option: str) -> str | None:
    """For the positive/negative form of a switch that only exists the other way round: what the
    default already is (``--no-te-rng-tracker``: the tracker is off unless --te-rng-tracker)."""
    name = option[2:]
    if name.startswith("no-"):
        other = table.option("--" + name[3:])
        if other is not None and other.action == "store_true":
            return f" ({other.long} is a switch that is off by default: drop {option} to leave it off)"
    for negative in ("--no-" + name, "--disable-" + name):
        other = table.option(negative)
        if other is not None and other.action == "store_false":
            return f" (it is on by default; {negative} turns it off)"
    return None


def megatron_lm_flag_value(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.cfg.fmt != "megatron_lm" or not ctx.cfg.argv:
        return
    table = cli_tables.megatron_lm(ctx.era.mcore_version)
    for p in _flag_problems(ctx, table):
        if p.kind != "value" or p.option in _GRAPH_VALUE_RULES or _unexpanded(ctx, p.option):
            continue
        yield _located(ctx, p.option, {"option": p.option, "tag": table.source["tag"], "problem": p.message,
                                       "keys": list(flag_tables.megatron_lm_flag(p.option.lstrip("-")).keys),
                                       "fix": {}})


def _unexpanded(ctx: Ctx, option: str) -> bool:
    """The option's value is a shell expansion ($VAR, $(...)): the parser sees what it expands to."""
    args = [tok for tok, _ in ctx.cfg.argv]
    for i, tok in enumerate(args):
        if tok.split("=", 1)[0] == option:
            following = [tok.split("=", 1)[1]] if "=" in tok else args[i + 1:i + 2]
            return any("$" in v or "`" in v for v in following)
    return option == "" or "$" in option


def run_script_flag_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.cfg.fmt != "run_script" or not ctx.cfg.argv:
        return
    table = cli_tables.run_script()
    for p in _flag_problems(ctx, table):
        if p.kind == "unknown":
            yield _located(ctx, p.option, {
                "option": p.option, "commit": str(table.source["commit"])[:9],
                "suggestion": f" (did you mean {p.suggestion}?)" if p.suggestion else "",
                "fix": {"remove": p.option} if not p.suggestion else {"replace": f"{p.option} -> {p.suggestion}"},
            })


def run_script_flag_value(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.cfg.fmt != "run_script" or not ctx.cfg.argv:
        return
    table = cli_tables.run_script()
    for p in _flag_problems(ctx, table):
        if p.kind != "value" or _unexpanded(ctx, p.option):
            continue
        fix: dict[str, Any] = {}
        if p.canonical is not None and p.canonical.dest == "cuda_graph_impl" and "full_iteration" in p.message:
            # the harness spells full iteration as a scope; _set_cuda_graph_overrides maps it per era
            fix = {"--cuda_graph_impl": "local", "--cuda_graph_scope": "full_iteration"}
        yield _located(ctx, p.option, {"option": p.option, "commit": str(table.source["commit"])[:9],
                                       "problem": p.message, "fix": fix})


def _run_script_value(ctx: Ctx, dest: str) -> tuple[str | None, str | None]:
    """(value, option as written) of the last run_script option with ``dest``."""
    table = cli_tables.run_script()
    args = [tok for tok, _ in ctx.cfg.argv]
    found: tuple[str | None, str | None] = (None, None)
    for i, tok in enumerate(args):
        name, eq, inline = tok.partition("=")
        opt = table.option(name)
        if opt is not None and opt.dest == dest:
            found = (inline if eq else (args[i + 1] if i + 1 < len(args) else None), name)
    return found


def run_script_full_iteration_scope(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """``_set_cuda_graph_overrides`` (scripts/performance/utils/overrides.py l.137-142 @067f987)."""
    if ctx.cfg.fmt != "run_script" or not ctx.cfg.argv:
        return
    scope, option = _run_script_value(ctx, "cuda_graph_scope")
    if scope is None or "$" in scope:
        return
    names = [s for s in scope.split(",") if s]
    if "full_iteration" not in names:
        return
    impl, _ = _run_script_value(ctx, "cuda_graph_impl")
    if names != ["full_iteration"]:
        yield _located(ctx, option, {"problem": "cannot be combined with other scopes",
                                     "fix": {"--cuda_graph_scope": "full_iteration"}})
    elif impl == "transformer_engine":
        yield _located(ctx, option, {"problem": "cannot use --cuda_graph_impl transformer_engine",
                                     "fix": {"--cuda_graph_impl": "local"}})


#: Hydra's sweep syntax: a top-level comma (``a,b``) or a sweep function (choice/range/interval/glob).
_SWEEP_FN = re.compile(r"^\s*(choice|range|interval|glob|shuffle|sort|tag)\s*\(")


def top_level_comma(value: str) -> bool:
    """True when Hydra's grammar reads ``value`` as a choice sweep: a comma outside brackets,
    braces, parentheses and quotes."""
    depth, quote, escaped = 0, "", False
    for ch in value:
        if escaped:
            escaped = False
            continue
        if ch == "\\":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            return True
    return False


def is_sweep(value: str) -> bool:
    return top_level_comma(value) or bool(_SWEEP_FN.match(value))


def hydra_override_sweep(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for token, line in ctx.cfg.overrides:
        key, _, value = token.partition("=")
        key = key.lstrip("+~")
        if value and is_sweep(value):
            from skill_tools.config.readers import scalar

            dotted = key if "." in key else "model." + key
            listed = "[" + value + "]" if top_level_comma(value) and not _SWEEP_FN.match(value) else None
            yield {"override": token, "key": dotted, "keys": [dotted],
                   "location": f"{ctx.cfg.source}:{line}",
                   "fix": {dotted: scalar(listed)} if listed else {},
                   "listed": f"{key}={listed}" if listed else "a list [a,b]"}
