"""YAML and JSON configs: Bridge ``ConfigContainer`` dumps (``_target_`` keys tolerated) or a flat
``TransformerConfig`` mapping, read with the bounded safe loader (:mod:`skill_tools.config.limits`)
and every parser error worded as one :class:`~skill_tools.errors.InputError`."""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from skill_tools.config import limits
from skill_tools.config.model import SECTIONS, CanonicalConfig, Location
from skill_tools.errors import InputError


def _untarget(value: Any) -> Any:
    """Reduce Bridge/OmegaConf ``_target_`` objects to plain data.

    Enum dumps (``{_target_: ...CudaGraphScope, _call_: true, _args_: [2], _name_: attn}``) become
    their name; function/dtype dumps (``_call_: false``) and partials become the target string;
    dataclass sections keep their fields.
    """
    if isinstance(value, Mapping):
        if "_target_" in value:
            if "_name_" in value:
                return str(value["_name_"])
            if value.get("_call_") is False or value.get("_partial_"):
                return str(value["_target_"])
        return {k: _untarget(v) for k, v in value.items()
                if not str(k).startswith(("_target_", "_call_", "_args_", "_partial_"))}
    if isinstance(value, list):
        return [_untarget(v) for v in value]
    return value


def from_mapping(data: Any, source: str, fmt: str, lines: Mapping[str, int] | None = None) -> CanonicalConfig:
    if data is None:
        raise InputError(source, "empty document", hint="the file holds no mapping")
    if not isinstance(data, Mapping):
        raise InputError(source, f"expected a mapping of config sections or TransformerConfig fields, got a {type(data).__name__}",
                         line=(lines or {}).get("", None))
    limits.check_data(data, source)
    data = _untarget(data)
    env = data.pop("env", None) if isinstance(data.get("env"), Mapping) else None
    nested = any(str(k) in SECTIONS for k in data)
    cfg = CanonicalConfig.from_nested(data, source=source, fmt=fmt, flat_section=None if nested else "model")
    if env:
        cfg.env.update({str(k): str(v) for k, v in env.items()})
    for key in cfg.values:
        raw = key if nested else key[len("model."):]
        line = (lines or {}).get(raw)
        if line is not None:
            cfg.locations[key] = Location(source, line)
    return cfg


def read_yaml(text: str, source: str) -> CanonicalConfig:
    import yaml

    try:
        data, node = limits.load_yaml(text, source)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = (exc.problem or exc.context or "syntax error").strip()
        raise InputError(source, f"YAML syntax error: {problem}", line=mark.line + 1 if mark else None,
                         hint="fix the YAML at that line") from None
    except yaml.YAMLError as exc:
        raise InputError(source, f"YAML error: {exc}") from None
    if isinstance(data, str) and "=" in data and data.count("\n") == 0:
        from skill_tools.config.read_flags import read_hydra

        return read_hydra(text, source)
    lines: dict[str, int] = {}
    if node is not None:
        _node_lines(node, "", lines)
    return from_mapping(data, source, "yaml", lines)


def _node_lines(node: Any, prefix: str, out: dict[str, int]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key.startswith("_target_"):
                continue
            dotted = f"{prefix}{key}"
            out[dotted] = key_node.start_mark.line + 1
            _node_lines(value_node, dotted + ".", out)


def read_json(text: str, source: str) -> CanonicalConfig:
    try:
        data = json.loads(text, parse_int=lambda digits: _bounded_int(digits, source),
                          object_pairs_hook=lambda pairs: _unique(pairs, source))
    except json.JSONDecodeError as exc:
        raise InputError(source, f"JSON syntax error: {exc.msg} (column {exc.colno})", line=exc.lineno,
                         hint="fix the JSON at that line") from None
    lines: dict[str, int] = {}
    for i, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r'"([A-Za-z_][\w]*)"\s*:', line):
            lines.setdefault(m.group(1), i)
    flat_lines: dict[str, int] = {}
    if isinstance(data, Mapping):
        for key in _dotted_keys(data):
            line = lines.get(key.rsplit(".", 1)[-1])
            if line is not None:
                flat_lines[key] = line
    return from_mapping(data, source, "json", flat_lines)


def _unique(pairs: list[tuple[str, Any]], source: str) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (json keeps the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise InputError(source, f"duplicate key {key!r} in one JSON object",
                             hint="an object holds each key once; which value was meant?")
        out[key] = value
    return out


def _bounded_int(digits: str, source: str) -> int:
    limits.check_int_digits(digits, source)
    return int(digits)


def _dotted_keys(data: Mapping[str, Any], prefix: str = "") -> Iterable[str]:
    for k, v in data.items():
        yield prefix + str(k)
        if isinstance(v, Mapping):
            yield from _dotted_keys(v, prefix + str(k) + ".")
