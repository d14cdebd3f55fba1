"""Render canonical key/values (or a whole :class:`CanonicalConfig`) in any output format.

``render(values, "megatron_lm")`` gives flags for ``pretrain_gpt.py``; ``"run_script"`` gives
Bridge perf-harness flags plus Hydra overrides for keys the harness has no flag for; ``"hydra"``
gives ``key=value`` overrides; ``"python"`` gives ``cfg.section.key = value`` assignments;
``"yaml"`` gives a nested ConfigContainer-layout mapping. A value of ``None`` means "clear"
(``cuda_graph_scope=None`` in the 0.18+ era) and is rendered where the format can say it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from skill_tools.config import cli_tables
from skill_tools.config import flags as flag_tables
from skill_tools.config.era import DEFAULT_CURRENT, Era
from skill_tools.config.model import SECTIONS, CanonicalConfig
from skill_tools.errors import InputError

RENDER_FORMATS = ("yaml", "json", "python", "hydra", "run_script", "megatron_lm")


def render(cfg_or_values: CanonicalConfig | Mapping[str, Any], fmt: str, era: Era | None = None) -> str:
    """Text for ``cfg_or_values`` in ``fmt`` (flag formats spelled for ``era``, default the
    newest); ends with a newline."""
    return render_report(cfg_or_values, fmt, era).text


def render_report(cfg_or_values: CanonicalConfig | Mapping[str, Any], fmt: str, era: Era | None = None) -> Rendered:
    """:func:`render` with the keys the format cannot say (``unsaid``) and the parser table used."""
    if isinstance(cfg_or_values, CanonicalConfig):
        values, env = dict(cfg_or_values.values), dict(cfg_or_values.env)
    else:
        values, env = dict(cfg_or_values), {}
    if fmt not in _RENDERERS:
        raise InputError("--format", f"unsupported output format {fmt!r}", hint=f"one of: {', '.join(RENDER_FORMATS)}")
    if fmt in ("megatron_lm", "run_script"):
        out = _RENDERERS[fmt](values, env, era)
    elif fmt == "hydra":
        parts = _hydra_parts(values, env)
        out = Rendered("\n".join(parts), parts=parts)
    else:
        out = Rendered(_RENDERERS[fmt](values, env))
    if out.text and not out.text.endswith("\n"):
        out.text += "\n"
    return out


def _nested(values: Mapping[str, Any]) -> dict[str, Any]:
    return CanonicalConfig(values=dict(values)).to_nested()


def _yaml(values: Mapping[str, Any], env: Mapping[str, str]) -> str:
    import yaml

    data = _nested(values)
    if env:
        data["env"] = dict(env)
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def _json(values: Mapping[str, Any], env: Mapping[str, str]) -> str:
    import json

    data = _nested(values)
    if env:
        data["env"] = dict(env)
    return json.dumps(data, indent=2)


def _python(values: Mapping[str, Any], env: Mapping[str, str]) -> str:
    lines = []
    if env:
        lines.append("import os")
        lines += [f"os.environ[{k!r}] = {v!r}" for k, v in env.items()]
    lines += [f"cfg.{key} = {value!r}" for key, value in values.items()]
    return "\n".join(lines)


def hydra_value(value: Any) -> str:
    """``value`` in Hydra's override grammar: a string is quoted whenever Hydra's parser would
    read it as anything else (a number, a bool, a list, text with escapes), backslashes before a
    quote doubled the way the grammar halves them."""
    from skill_tools.config import hydra_grammar

    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{hydra_value(str(k))}:{hydra_value(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if isinstance(value, str) and (hydra_grammar.value(text) != text or not re.fullmatch(r"[A-Za-z0-9_./+-]+", text)):
        body = re.sub(r"(\\*)('|$)", lambda m: m.group(1) * 2 + ("\\'" if m.group(2) else ""), text)
        return "'" + body + "'"
    return text


def _hydra_parts(values: Mapping[str, Any], env: Mapping[str, str]) -> list[str]:
    lines = [_shell_word(f"{k}={v}") for k, v in env.items()]
    lines += [_shell_word(f"{key}={hydra_value(value)}") for key, value in values.items()]
    return lines


def _shell_word(part: str) -> str:
    """One override as one shell word (the Hydra file is read as shell words): quoted only where
    the shell would change it; ``key=[a,b]`` stays as people write it."""
    import shlex

    if not re.search(r"[\s'\"\\$`;&|<>()#*?!~]", part):
        return part
    if "'" in part and not re.search(r'["$`\\!]', part):
        return f'"{part}"'  # model.x='a b' reads better than the all-purpose '\''-splicing
    return shlex.quote(part)


def _hydra(values: Mapping[str, Any], env: Mapping[str, str]) -> str:
    return "\n".join(_hydra_parts(values, env))


def _shell(value: Any) -> str:
    import shlex

    return shlex.quote(str(value))


@dataclass
class Rendered:
    """Rendered text, and the keys the format's parser has no way to say (never silently lost:
    the caller prints them as notes)."""

    text: str
    unsaid: dict[str, Any] = field(default_factory=dict)
    parser: str | None = None  # the upstream parser whose table the text was checked against
    parts: list[str] = field(default_factory=list)  # one option with its values (or one override) each


def _flag_text(option: str, value: Any, opt) -> str:
    if isinstance(value, list):
        return f"{option} " + " ".join(_shell(v) for v in value)
    if isinstance(value, bool):
        return f"{option} {str(value).lower()}"
    return f"{option} {_shell(value)}"


def _megatron_lm(values: Mapping[str, Any], env: Mapping[str, str], era: Era | None = None) -> Rendered:
    """Flags for ``pretrain_*.py`` that the era's own flag table accepts: each canonical key goes
    to the option whose reader mapping names it; booleans become the store_true/store_false form
    that exists (or nothing, where the value is the flag's default); a key no option takes is
    returned in ``unsaid``."""
    table = cli_tables.megatron_lm((era.mcore_version if era else DEFAULT_CURRENT))
    index = _megatron_lm_index(table)
    parts: list[str] = [f"{k}={_shell(v)}" for k, v in env.items()]
    emitted: set[str] = set()
    unsaid: dict[str, Any] = {}
    for key, value in values.items():
        if value is None or (value == [] and key.endswith(("_scope", "_modules"))):
            continue  # MLM's defaults: no scope/modules flag means the whole layer / nothing set
        text = _megatron_lm_option(index.get(key, ()), value)
        if text is None:
            unsaid[key] = value
        elif text and text not in emitted:
            emitted.add(text)
            parts.append(text)
    return Rendered(" \\\n  ".join(parts), unsaid, table.label, parts)


def _megatron_lm_option(candidates, value: Any) -> str | None:
    """'' when the value is the option's default (nothing to write), None when no option says it."""
    if isinstance(value, bool):
        for opt, option, spec in candidates:
            if opt.action == "BooleanOptionalAction":
                return option if value else "--no-" + option[2:]
            fixed = spec.value if spec.value is not None else (spec.kind == "flag")
            if spec.kind in ("flag", "flag_false") and fixed is value:
                return option
        switches = [(o, s) for o, _, s in candidates if o.is_switch]
        if switches:
            # store_true defaults to False, store_false to True (how Megatron-LM's factory makes them)
            defaults = {(s.value if s.value is not None else s.kind == "flag") is not True for o, s in switches}
            return "" if value in defaults else None
        for opt, option, spec in candidates:
            if opt.takes_value and spec.kind == "value":
                return _flag_text(option, value, opt)
        return None
    for opt, option, spec in candidates:
        if not opt.takes_value:
            if spec.value is not None and spec.value == value:
                return option  # --recompute-activations means recompute_granularity='selective'
            continue
        if isinstance(value, list) and opt.nargs not in ("+", "*") and not str(opt.nargs).isdigit():
            continue
        if opt.choices is not None and not isinstance(value, list) and value not in opt.choices:
            continue
        return _flag_text(option, value, opt)
    return None


@functools.lru_cache(maxsize=None)
def _megatron_lm_index(table: cli_tables.Table) -> dict[str, list]:
    """Canonical key -> [(option, '--name', reader mapping)] for every option of the table,
    through the same mapping the reader uses (so rendering and reading round-trip)."""
    index: dict[str, list] = {}
    for opt in table.options:
        for option in opt.options:
            if not option.startswith("--"):
                continue
            spec = flag_tables.megatron_lm_flag(option[2:])
            for key in spec.keys:
                index.setdefault(key, []).append((opt, option, spec))
    for entries in index.values():
        # the option named after the key first; negative forms last
        entries.sort(key=lambda e: (e[1].startswith(("--no-", "--disable-")), e[2].kind != "value"))
    return index


#: What run_script.py sets whatever the flags say (``utils/overrides.py``
#: ``_set_common_perf_overrides``/``_set_cuda_graph_overrides`` @067f987): rendering them is redundant.
def _run_script_implied(values: Mapping[str, Any]) -> dict[str, Any]:
    implied: dict[str, Any] = {"ddp.check_for_nan_in_grad": False, "rerun_state_machine.check_for_nan_in_loss": False}
    impl = values.get("model.cuda_graph_impl")
    if impl is not None:
        implied["rng.te_rng_tracker"] = implied["model.use_te_rng_tracker"] = impl != "none"
    return implied


def _run_script(values: Mapping[str, Any], env: Mapping[str, str], era: Era | None = None) -> Rendered:
    """Perf-harness flags its parser accepts, plus Hydra overrides for the rest. Graph settings go
    through the harness's own flags, which ``_set_cuda_graph_overrides`` turns into the era's keys:
    full iteration is ``--cuda_graph_impl local --cuda_graph_scope full_iteration`` (the parser
    has no 'full_iteration' impl) and per-layer modules are ``--cuda_graph_scope a,b``."""
    table = cli_tables.run_script()
    values = dict(values)
    implied = _run_script_implied(values)
    parts: list[str] = []
    hydra: dict[str, Any] = {}
    impl = values.pop("model.cuda_graph_impl", None)
    modules = values.pop("model.cuda_graph_modules", None)
    scope = values.pop("model.cuda_graph_scope", None)
    names = [n for n in (modules or []) + [n for n in (scope or []) if n not in (modules or [])]]
    if impl == "full_iteration" or (impl == "local" and names == ["full_iteration"]):
        parts += ["--cuda_graph_impl local", "--cuda_graph_scope full_iteration"]
        impl, names = None, []
    if impl is not None:
        parts.append(f"--cuda_graph_impl {_shell(impl)}")
    scope_opt = table.option("--cuda_graph_scope")
    if names and scope_opt is not None and scope_opt.accepts and not set(map(str, names)) <= set(scope_opt.accepts):
        # a value the harness's scope flag refuses (full_iteration_inference): a Hydra override says it
        for key, value in (("model.cuda_graph_modules", modules), ("model.cuda_graph_scope", scope)):
            if value is not None:
                hydra[key] = value
        names = []
    if names:
        parts.append("--cuda_graph_scope " + ",".join(str(n) for n in names))  # set_cuda_graph_modules clears the rest
    elif impl not in (None, "none"):
        # no flag says "whole layer": an explicit empty list stays a Hydra override
        for key, value in (("model.cuda_graph_modules", modules), ("model.cuda_graph_scope", scope)):
            if value == []:
                hydra[key] = []
    index = _run_script_index(table)
    unsaid: dict[str, Any] = {}
    for key, value in values.items():
        if key in implied and implied[key] == value:
            continue
        opt = index.get(key)
        if opt is None or value is None:
            if key.split(".", 1)[0] in SECTIONS:
                hydra[key] = value
            else:
                unsaid[key] = value  # not a ConfigContainer key: no Hydra override can say it
            continue
        if opt.splits_commas or (isinstance(value, list) and opt.type == "list_of_strings"):
            if not value:
                hydra[key] = value
                continue
            parts.append(f"{opt.long} " + ",".join(str(v) for v in value))
        elif opt.is_switch:
            if value:
                parts.append(opt.long)
        else:
            parts.append(_flag_text(opt.long, value, opt))
    if env:
        parts.append("--custom_env_vars " + _shell(",".join(f"{k}={v}" for k, v in env.items())))
    parts += [_shell(f"{k}={hydra_value(v)}") for k, v in hydra.items()]
    return Rendered(" \\\n  ".join(parts), unsaid, table.label, parts)


@functools.lru_cache(maxsize=None)
def _run_script_index(table: cli_tables.Table) -> dict[str, cli_tables.Option]:
    """Canonical key -> the harness option that sets it (through the reader's table)."""
    index: dict[str, cli_tables.Option] = {}
    for opt in table.options:
        spec = flag_tables.RUN_SCRIPT.get(opt.long[2:])
        if spec is not None and len(spec.keys) == 1:
            index.setdefault(spec.keys[0], opt)
    return index


_RENDERERS = {
    "yaml": _yaml,
    "json": _json,
    "python": _python,
    "hydra": _hydra,
    "run_script": _run_script,
    "megatron_lm": _megatron_lm,
}
