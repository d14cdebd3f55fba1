"""Sectioned ``key = value`` configs: TOML and INI files (``[model]`` then ``cuda_graph_impl = "local"``).

Read by the standard library's own parsers (``tomllib`` from Python 3.11; ``configparser`` for INI,
and for TOML on Python 3.10; its values are then read as YAML scalars/lists: ``true``, ``["attn"]``,
``local``) and rewritten as the Hydra overrides they mean (``model.cuda_graph_impl=local``). Nothing
is executed.
"""

from __future__ import annotations

import configparser
import re
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (supported) has no TOML reader: INI's reader takes the same lines
    tomllib = None  # type: ignore[assignment]

from skill_tools.evaluation.overrides_dict import render

_HEADER = re.compile(r"^\s*\[[A-Za-z_][\w.]*\]\s*(?:[#;].*)?$")
_KV = re.compile(r"^\s*[A-Za-z_][\w.]*\s*=\s*\S.*$")
_COMMENT = re.compile(r"^\s*(?:#|;)")


def is_header(line: str) -> bool:
    return bool(_HEADER.match(line))


def looks_sectioned(body: str) -> bool:
    """At least one ``[section]`` header, and every other line a ``key = value``, comment or blank."""
    lines = [ln for ln in body.split("\n") if ln.strip() and not _COMMENT.match(ln)]
    return any(_HEADER.match(ln) for ln in lines) and all(_HEADER.match(ln) or _KV.match(ln) for ln in lines)


def sectioned_overrides(body: str) -> str | None:
    """Hydra override lines for a TOML or INI body, else None."""
    flat: dict[str, Any] = {}
    if tomllib is None:
        flat = _ini(body)
    else:
        try:
            _flatten(tomllib.loads(body), "", flat)
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            flat = _ini(body)
    if not flat:
        return None
    return "\n".join(f"{k}={render(v)}" for k, v in flat.items())


def _flatten(data: Any, prefix: str, out: dict[str, Any]) -> None:
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(value, name + ".", out)
        elif "." in name:
            out[name] = value


def _ini(body: str) -> dict[str, Any]:
    import yaml

    parser = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None, strict=False)
    parser.optionxform = str  # keys keep their case
    try:
        parser.read_string(body)
    except (configparser.Error, ValueError):
        return {}
    out: dict[str, Any] = {}
    for section in parser.sections():
        for key, raw in parser.items(section):
            try:
                value = yaml.safe_load(raw) if len(raw) <= 2000 else raw
            except yaml.YAMLError:
                value = raw
            out[f"{section}.{key}"] = value
    return out
