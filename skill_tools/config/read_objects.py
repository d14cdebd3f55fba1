"""Live config objects: a Bridge ``ConfigContainer`` or an MCore ``TransformerConfig`` (duck-typed
attributes, properties that raise skipped), read without importing megatron."""

from __future__ import annotations

from typing import Any, Mapping

from skill_tools.config.model import CanonicalConfig, plain


def has_attr(obj: Any, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # noqa: BLE001 - properties of live objects may raise
        return False


def read_attrs(cfg: CanonicalConfig, obj: Any, prefix: str, depth: int) -> None:
    import dataclasses

    if depth > 3:
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = [f.name for f in dataclasses.fields(obj)]
    elif isinstance(obj, Mapping):
        names = [str(k) for k in obj]
    else:
        names = [n for n in getattr(obj, "__dict__", {}) if not n.startswith("_")]
    for name in names:
        try:
            value = obj[name] if isinstance(obj, Mapping) else getattr(obj, name)
        except Exception:  # noqa: BLE001
            continue
        key = f"{prefix}.{name}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            read_attrs(cfg, value, key, depth + 1)
            continue
        value = plain(value)
        if isinstance(value, (bool, int, float, str, type(None))) or _is_plain(value):
            cfg.values[key] = value
        elif callable(value) or type(value).__module__.startswith("torch"):
            cfg.values[key] = _qualname(value)


def _is_plain(value: Any) -> bool:
    if isinstance(value, (bool, int, float, str, type(None))):
        return True
    if isinstance(value, list):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False


def _qualname(value: Any) -> str:
    mod = getattr(value, "__module__", None) or type(value).__module__
    name = getattr(value, "__qualname__", None) or str(value)
    return f"{mod}.{name}" if mod and not str(name).startswith(mod) else str(name)
