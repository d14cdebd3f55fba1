"""Render canonical key/values (or a whole :class:`CanonicalConfig`) in any output format.

``render(values, "megatron_lm")`` gives flags for ``pretrain_gpt.py``; ``"run_script"`` gives
Bridge perf-harness flags plus Hydra overrides for keys the harness has no flag for; ``"hydra"``
gives ``key=value`` overrides; ``"python"`` gives ``cfg.section.key = value`` assignments;
``"yaml"`` gives a nested ConfigContainer-layout mapping. A value of ``None`` means "clear"
(``cuda_graph_scope=None`` in the 0.18+ era) and is rendered where the format can say it.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from skill_tools.config import flags as flag_tables
from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError

RENDER_FORMATS = ("yaml", "json", "python", "hydra", "run_script", "megatron_lm")


def render(cfg_or_values: CanonicalConfig | Mapping[str, Any], fmt: str) -> str:
    """Text for ``cfg_or_values`` in ``fmt``; ends with a newline."""
    if isinstance(cfg_or_values, CanonicalConfig):
        values, env = dict(cfg_or_values.values), dict(cfg_or_values.env)
    else:
        values, env = dict(cfg_or_values), {}
    if fmt not in _RENDERERS:
        raise InputError("--format", f"unsupported output format {fmt!r}", hint=f"one of: {', '.join(RENDER_FORMATS)}")
    text = _RENDERERS[fmt](values, env)
    return text if text.endswith("\n") or not text else text + "\n"


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
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    text = str(value)
    if isinstance(value, str) and (not text or re.search(r"[\s,\[\]{}=:'\"]", text) or text.lower() in ("true", "false", "null", "none")):
        return "'" + text.replace("'", "\\'") + "'"
    return text


def _hydra(values: Mapping[str, Any], env: Mapping[str, str]) -> str:
    lines = [f"{k}={v}" for k, v in env.items()]
    lines += [f"{key}={hydra_value(value)}" for key, value in values.items()]
    return "\n".join(lines)


def _shell(value: Any) -> str:
    import shlex

    return shlex.quote(str(value))


def _megatron_lm(values: Mapping[str, Any], env: Mapping[str, str]) -> str:
    reverse = flag_tables.reverse_megatron_lm()
    parts: list[str] = [f"{k}={_shell(v)}" for k, v in env.items()]
    done: set[str] = set()
    for key, value in values.items():
        if key in done:
            continue
        flag = reverse.get(key)
        if flag is None and key.startswith("model."):
            flag = key[len("model."):].replace("_", "-")
        if flag is None:
            flag = key.split(".", 1)[-1].replace("_", "-")
        entry = flag_tables.MEGATRON_LM.get(flag)
        if entry is not None:
            done.update(entry.keys)
        if value is None or value == [] and flag.endswith(("-scope", "-modules")):
            continue  # MLM's defaults: no scope/modules flag means the whole layer / nothing set
        if isinstance(value, bool):
            if value:
                parts.append(f"--{flag}")
            else:
                # store_true flags default to False: only flags with a real negative form are emitted
                negative = next((n for n, e in flag_tables.MEGATRON_LM.items()
                                 if e.kind == "flag_false" and key in e.keys and e.value is None), None)
                if negative:
                    parts.append(f"--{negative}")
        elif isinstance(value, list):
            parts.append(f"--{flag} " + " ".join(_shell(v) for v in value))
        else:
            parts.append(f"--{flag} {_shell(value)}")
    return " \\\n  ".join(parts)


def _run_script(values: Mapping[str, Any], env: Mapping[str, str]) -> str:
    reverse = flag_tables.reverse_run_script()
    parts: list[str] = []
    hydra: dict[str, Any] = {}
    for key, value in values.items():
        flag = reverse.get(key)
        if flag is None or value is None:
            hydra[key] = value
            continue
        entry = flag_tables.RUN_SCRIPT[flag]
        if entry.kind == "comma_list":
            if value == []:
                hydra[key] = value
                continue
            parts.append(f"--{flag} " + ",".join(str(v) for v in value))
        else:
            parts.append(f"--{flag} {_shell(value)}")
    if env:
        parts.append("--custom_env_vars " + _shell(",".join(f"{k}={v}" for k, v in env.items())))
    parts += [_shell(f"{k}={hydra_value(v)}") for k, v in hydra.items()]
    return " \\\n  ".join(parts)


_RENDERERS = {
    "yaml": _yaml,
    "json": _json,
    "python": _python,
    "hydra": _hydra,
    "run_script": _run_script,
    "megatron_lm": _megatron_lm,
}
