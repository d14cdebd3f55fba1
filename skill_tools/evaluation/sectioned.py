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


#: A TOML-only value: lower-case ``true`` / ``false`` (Python writes ``True``; a shell has no spaces around ``=``).
_TOML_BOOL = re.compile(r"^\s*[A-Za-z_][\w.]*\s+=\s+(?:true|false)\s*(?:#.*)?$", re.M)


def looks_sectioned(body: str) -> bool:
    """At least one ``[section]`` header, and every other line a ``key = value``, comment or blank;
    or, with no header, ``key = value`` lines only, one of them a TOML boolean (a Terraform
    ``.tfvars`` or a flat TOML file: ``use_te_rng_tracker = true``)."""
    lines = [ln for ln in body.split("\n") if ln.strip() and not _COMMENT.match(ln)]
    if not lines or not all(_HEADER.match(ln) or _KV.match(ln) for ln in lines):
        return False
    return any(_HEADER.match(ln) for ln in lines) or (bool(_TOML_BOOL.search(body)) and _toml(body) is not None)


def _toml(body: str) -> dict[str, Any] | None:
    """``body`` read by ``tomllib``; None when it is no TOML (or Python 3.10 has no reader)."""
    if tomllib is None:
        return None
    try:
        return tomllib.loads(body)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None


def sectioned_overrides(body: str) -> str | None:
    """Hydra override lines for a TOML or INI body, else None."""
    flat: dict[str, Any] = {}
    doc = _toml(body)
    if doc is None:
        flat = _ini(body)
    else:
        _flatten(doc, "", flat)
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
        elif not prefix and not isinstance(value, dict):
            out[f"model.{name}"] = value  # a flat file's keys are TransformerConfig fields, as a flat YAML's are


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
