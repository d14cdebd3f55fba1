"""Megatron-Core as an oracle: build the real ``TransformerConfig`` from the model section and
report what it says (accepted, or the exception it raised, plus its warnings).

megatron-core (and torch) are imported only when the oracle runs, never at module import, so a
plain ``skill-tools validate`` stays fast.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from typing import Any

from skill_tools.config.era import installed_version
from skill_tools.config.model import CanonicalConfig

#: Keys the oracle always passes when present, even where the installed class lacks them, so
#: that a key of the wrong era fails the way TransformerConfig fails (TypeError).
GRAPH_KEYS = ("cuda_graph_impl", "cuda_graph_scope", "cuda_graph_modules", "inference_cuda_graph_scope",
              "enable_cuda_graph", "external_cuda_graph", "cuda_graph_warmup_steps")
#: Smallest model that constructs on CPU when the config does not say.
MINIMAL = {"num_layers": 2, "hidden_size": 64, "num_attention_heads": 4}


@functools.lru_cache(maxsize=1)
def _fields() -> dict[str, dataclasses.Field]:
    from megatron.core.transformer.transformer_config import TransformerConfig

    return {f.name: f for f in dataclasses.fields(TransformerConfig)}


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return None


def kwargs_for(model: dict[str, Any], fields: dict[str, dataclasses.Field]) -> tuple[dict[str, Any], list[str]]:
    """TransformerConfig keyword arguments from a model section; also the keys left out."""
    kwargs: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in model.items():
        if "." in key:
            dropped.append(key)
            continue
        if key in GRAPH_KEYS:
            kwargs[key] = value
            continue
        f = fields.get(key)
        if f is None:
            dropped.append(key)
            continue
        default = _default(f)
        if isinstance(value, str) and default is not None and not isinstance(default, (str, bool, int, float, list)):
            dropped.append(key)  # a dumped callable/dtype target string, not a value MCore can take
            continue
        kwargs[key] = value
    for key, value in MINIMAL.items():
        kwargs.setdefault(key, value)
    return kwargs, dropped


def run(cfg: CanonicalConfig | dict[str, Any]) -> dict[str, Any]:
    """Construct TransformerConfig; never raises. Returns the verdict as plain data."""
    model = cfg.section("model") if isinstance(cfg, CanonicalConfig) else dict(cfg)
    version = installed_version("megatron-core")
    if version is None:
        return {"ran": False, "reason": "megatron-core is not installed"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from megatron.core.transformer.transformer_config import TransformerConfig

            fields = _fields()
    except Exception as exc:  # noqa: BLE001 - a broken install is a verdict, not a crash
        return {"ran": False, "reason": f"cannot import megatron-core: {type(exc).__name__}: {exc}"}
    kwargs, dropped = kwargs_for(model, fields)
    caught: list[str] = []
    error: BaseException | None = None
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        try:
            TransformerConfig(**kwargs)
        except Exception as exc:  # noqa: BLE001 - the exception *is* the oracle's answer
            error = exc
    for w in records:
        text = str(w.message)
        if "graph" in text.lower() or "scope" in text.lower():
            caught.append(text)
    return {
        "ran": True,
        "mcore_version": version,
        "ok": error is None,
        "error_type": type(error).__name__ if error else None,
        "error": str(error) if error else None,
        "rule": match_rule(error, model) if error else None,
        "warnings": list(dict.fromkeys(caught)),
        "ignored_keys": dropped,
    }


def agrees(catalog_errors: set[str], verdict: dict[str, Any]) -> bool:
    """Whether the catalog's MCore-level error rules and a ran oracle ``verdict`` say the same:
    both accept, or both reject and the rule MCore's exception maps to is among the catalog's."""
    return bool(catalog_errors) == (not verdict["ok"]) and (verdict["ok"] or verdict["rule"] in catalog_errors)


def match_rule(error: BaseException, model: dict[str, Any] | None = None) -> str | None:
    """The catalog rule whose ``mcore_message`` matches MCore's exception text.

    MCore's enum lookups fail with a bare ``KeyError: 'name'``; which field held the name
    decides between an unknown scope/module and an unknown inference scope.
    """
    from skill_tools.rules import catalog

    text = str(error)
    if isinstance(error, KeyError) and error.args:
        text = repr(error.args[0])
        if model is not None and model.get("inference_cuda_graph_scope") == error.args[0]:
            return "inference-scope-unknown"
        return "scope-unknown"
    for rule in catalog.load().mcore_rules():
        if rule.matches_mcore(text):
            return rule.id
    return None
