"""Megatron-Core as an oracle: build the real ``TransformerConfig`` from the model section and
report what it says (accepted, or the exception it raised, plus its warnings).

megatron-core (and torch) are imported only when the oracle runs, never at module import, so a
plain ``skill-tools validate`` stays fast.
"""

from __future__ import annotations

import dataclasses
import functools
import re
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


#: Exceptions that say nothing about CUDA graphs: the CPU oracle could not judge the config.
_NOT_JUDGEABLE = (
    (re.compile(r"'\$\{?\w+"), "a value the launch leaves to its environment (an unexpanded ${...})"),
    (re.compile(r"NVIDIA driver|CUDA driver|no CUDA GPUs|Torch not compiled with CUDA"),
     "this step needs a GPU (Megatron-LM's validate_args queries the device)"),
    (re.compile(r"[Tt]ransformer.?[Ee]ngine|\bTE\b|te_version|is_te_min_version|0\.0\.0"),
     "Transformer Engine is not installed here (megatron-core reads its version as 0.0.0)"),
    (re.compile(r"pipeline_dtype|params_dtype|must be specified|num_attention_heads|hidden_size|ffn_hidden_size|"
                r"kv_channels|num_query_groups|seq_length|vocab"),
     "a field that only Megatron-LM's args-to-config step (core_transformer_config_from_args) or a loaded "
     "checkpoint fills"),
)
_GRAPH_WORDS = re.compile(r"cuda.?graph|graph|scope|full_iteration|rng|capture|warmup", re.I)


def judged(verdict: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether a ran verdict judges the graph settings: an acceptance, or an exception that maps to a
    catalog rule or speaks of graphs. Otherwise (missing Transformer Engine, a field the args-to-config
    step or a checkpoint fills, any non-graph exception) the oracle could not judge, and says why."""
    if verdict["ok"] or verdict.get("rule"):
        return True, None
    text = f"{verdict.get('error_type')}: {verdict.get('error')}"
    for pattern, reason in _NOT_JUDGEABLE:
        if pattern.search(text) and not _GRAPH_WORDS.search(str(verdict.get("error"))):
            return False, reason
    if not _GRAPH_WORDS.search(str(verdict.get("error"))):
        return False, f"megatron-core stopped for a reason that is not about CUDA graphs ({text[:160]})"
    return True, None


def agrees(catalog_errors: set[str], verdict: dict[str, Any]) -> bool:
    """Whether the catalog's MCore-level error rules and a ran oracle ``verdict`` say the same:
    both accept, or both reject and the rule MCore's exception maps to is among the catalog's."""
    return bool(catalog_errors) == (not verdict["ok"]) and (verdict["ok"] or verdict["rule"] in catalog_errors)


def match_mlm_rule(error: BaseException) -> str | None:
    """The catalog rule whose ``mlm_message`` matches Megatron-LM's own text (an arguments.py assert)."""
    from skill_tools.rules import catalog

    return next((r.id for r in catalog.load().mlm_rules() if r.matches_mlm(str(error))), None)


def mlm_judged_rules() -> set[str]:
    """Rules the launch oracle can name from Megatron-LM's text: compared beside the MCore-level ones."""
    from skill_tools.rules import catalog

    return {r.id for r in catalog.load().mlm_rules()}


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
