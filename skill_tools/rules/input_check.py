"""Reject input that parses but cannot mean what the user wants: a misspelled CUDA-graph key or
section, or a graph key of the wrong type. These are input errors (exit 2, location, fix), not
findings: the rules would silently read the default instead."""

from __future__ import annotations

import difflib
from typing import Any

from skill_tools.config.model import SECTIONS, CanonicalConfig
from skill_tools.errors import InputError
from skill_tools.rules.key_checks import MAX_LOOKUPS

_STR = (str,)
_LIST = (str, list, type(None))
_BOOL = (bool,)
_OPT_STR = (str, type(None))
_OPT_INT = (int, type(None))

#: Keys the rules read, with the types MCore/Bridge accept.
TYPES: dict[str, tuple[type, ...]] = {
    "model.cuda_graph_impl": _STR,
    "model.cuda_graph_scope": _LIST,
    "model.cuda_graph_modules": _LIST,
    "model.inference_cuda_graph_scope": _OPT_STR,
    "model.cuda_graph_warmup_steps": (int,),
    "model.enable_cuda_graph": _BOOL,
    "model.external_cuda_graph": _BOOL,
    "model.use_te_rng_tracker": _BOOL,
    "model.num_moe_experts": _OPT_INT,
    "model.recompute_granularity": _OPT_STR,
    "model.recompute_modules": (list, type(None)),
    "model.cpu_offloading": _BOOL,
    "model.pipeline_model_parallel_size": (int,),
    "model.attention_dropout": (int, float),
    "model.hidden_dropout": (int, float),
    "rng.te_rng_tracker": _BOOL,
    "rerun_state_machine.check_for_nan_in_loss": _BOOL,
    "ddp.check_for_nan_in_grad": _BOOL,
}
_GRAPH_KEYS = [k for k in TYPES] + ["model.cuda_graph_use_single_mempool", "model.cuda_graph_retain_backward_graph",
                                    "model.moe_pad_experts_for_cuda_graph_inference"]
_EXTRA_SECTIONS = ("validation", "ft", "straggler", "nvrx_straggler", "tensor_inspect", "env_vars", "meta", "inprocess_restart")


def _type_name(types: tuple[type, ...]) -> str:
    return " or ".join("null" if t is type(None) else {"str": "string", "int": "integer", "bool": "true/false",
                                                        "list": "list", "float": "number"}[t.__name__] for t in types)


def check_keys(cfg: CanonicalConfig) -> None:
    """Raise :class:`InputError` for misspelled graph keys/sections and wrongly typed graph keys."""
    known = set(_GRAPH_KEYS)
    lookups = 0  # fuzzy "did you mean" matches are bounded per config (see key_checks.MAX_LOOKUPS)
    for key, value in cfg.values.items():
        section, _, rest = key.partition(".")
        if section not in SECTIONS and section not in _EXTRA_SECTIONS and lookups < MAX_LOOKUPS:
            lookups += 1
            close = difflib.get_close_matches(section, SECTIONS, n=1, cutoff=0.8)
            if close:
                loc = cfg.location(key)
                raise InputError(loc.source, f"unknown section {section!r} (did you mean {close[0]!r}?)", line=loc.line,
                                 hint=f"rename it to {close[0]!r}")
        if key not in known and lookups < MAX_LOOKUPS and section in ("model", "rng", "rerun_state_machine", "ddp") and (
                "graph" in rest or "rng" in rest or "nan" in rest or _keyed_typo(cfg, key)):
            lookups += 1
            close = difflib.get_close_matches(key, _GRAPH_KEYS, n=1, cutoff=0.85)
            if close and close[0] != key:
                loc = cfg.location(key)
                raise InputError(loc.source, f"unknown key {key!r} (did you mean {close[0]!r}?)", line=loc.line,
                                 hint=f"rename it to {close[0]!r}; as written it is ignored and the default applies")
        types = TYPES.get(key)
        if types is not None and not _type_ok(value, types):
            loc = cfg.location(key)
            raise InputError(loc.source, f"{key} must be {_type_name(types)}, got {type(value).__name__} {value!r}",
                             line=loc.line, hint="fix the value's type")


def _keyed_typo(cfg: CanonicalConfig, key: str) -> bool:
    """A key a person wrote (not one a flag mapped to) that no section has: ``cuda_grpah_impl``
    holds no 'graph', yet is one letter swap from a graph key."""
    from skill_tools.rules.key_checks import section_keys

    if cfg.fmt in ("megatron_lm", "run_script"):
        return False
    section, _, rest = key.partition(".")
    return rest.split(".", 1)[0] not in section_keys().get(section, frozenset())


def _type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False
    if isinstance(value, list) and list in types:
        return all(isinstance(v, str) for v in value)
    return isinstance(value, types)
