"""Megatron Bridge as an oracle: Bridge's own ``ConfigContainer.validate()`` and the
``GPTModelProvider`` graph asserts, run on a Bridge-shaped input, next to megatron-core's verdict.

What runs is Bridge's code, on Bridge's own path for a user's settings:

1. the base is :func:`skill_tools.rules.bridge_recipe.tiny_gpt_recipe` (Bridge's own classes as its
   ``vanilla_gpt_pretrain_config`` recipe builds them: NullTokenizer, mock data, a two-layer model
   where the input does not give the size);
2. the input's values go through ``training/utils/omegaconf_utils.py``
   (``create_omegaconf_dict_config`` -> ``OmegaConf.merge`` as for a YAML file ->
   ``parse_hydra_overrides`` for Hydra overrides as written -> ``apply_overrides``), which is what
   ``process_config_with_overrides`` does for ``scripts/training/run_recipe.py``;
3. ``ConfigContainer.validate()`` (training/config.py l.1136-1400 in 0.6.2: packing checks,
   ``validate_cuda_graph_configuration`` from utils/cuda_graph.py, ``model.finalize()`` which is
   megatron-core's ``TransformerConfig.__post_init__``, the RNG-tracker sync l.1276-1277, the
   full-iteration NaN-check assert l.1369-1375);
4. ``GPTModelProvider.provide()`` up to its graph asserts (gpt_provider.py l.232-237:
   ``validate_cuda_graph_configuration`` and "Transformer engine's RNG tracker is required for
   cudagraphs"). ``provide()`` calls the provider's ``transformer_layer_spec`` callable right after
   those asserts (l.256-262); the oracle sets that public field to a callable that stops there, so no
   model is built and no GPU or process group is needed.

``validate()`` runs as ``pretrain`` runs it, inside ``runtime_config_update`` (training/config.py
l.1853-1888: environment variables, mixed precision resolved and applied, data-parallel size,
comm-overlap setup, then ``validate()``), with ``WORLD_SIZE`` (read by megatron-core's
``safe_get_world_size`` when no process group exists) set to tensor x pipeline x context parallel
size, so a TP/PP size in the input does not need that many processes.

Importing ``megatron.bridge`` needs Transformer Engine: the package ``__init__`` imports every model
bridge, and ``megatron/bridge/peft/lora_layers.py`` l.20 imports ``transformer_engine.pytorch``
unconditionally (0.6.2 wheel and main @067f987). Where that import fails, :func:`availability`
says so in one line and the oracle does not run. Nothing here is imported at module import.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import os
import sys
import traceback
import warnings
from typing import Any

from skill_tools.config.era import installed_version
from skill_tools.config.model import CanonicalConfig

#: Sections of the input the oracle does not hand to Bridge: they name files, services or
#: loggers (checkpoint paths, tokenizer models, W&B), never a CUDA-graph setting.
SKIPPED_SECTIONS = ("env_vars", "checkpoint", "logger", "tokenizer", "profiling", "ft", "straggler", "nvrx_straggler",
                    "inprocess_restart", "tensor_inspect", "peft", "env")
#: Dataset keys that matter to graphs; the rest of a dataset section (paths, blends) is not passed.
DATASET_KEYS = ("pad_to_max_length", "enable_offline_packing", "enable_in_batch_packing", "offline_packing_specs",
                "packing_buffer_size", "seq_length")
#: The base model where the input does not size it (the same minimum as the megatron-core oracle).
BASE_MODEL = {"num_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "ffn_hidden_size": 256, "seq_length": 128,
              "vocab_size": 1024}
BASE_OTHER = {"dataset": {"seq_length": 128}}
_STOP = "skill-tools bridge oracle: provider graph asserts passed"


class _ReachedLayerSpec(Exception):
    """Raised by the layer-spec callable: ``provide()`` got past its graph asserts."""


def _stop_at_layer_spec(config: Any, vp_stage: Any = None) -> Any:
    raise _ReachedLayerSpec(_STOP)


def _bridge_frames(exc: BaseException) -> list[str]:
    out = []
    for frame in traceback.extract_tb(exc.__traceback__):
        name = frame.filename.replace("\\", "/")
        if "/megatron/bridge/" in name:
            out.append(f"megatron/bridge/{name.split('/megatron/bridge/', 1)[1]}:{frame.lineno}")
    return out


@functools.lru_cache(maxsize=1)
def availability() -> tuple[bool, str]:
    """(importable, one line: the version, or why not with the import chain inside Bridge)."""
    version = installed_version("megatron-bridge")
    if version is None:
        return False, "megatron-bridge is not installed (pip install --no-deps megatron-bridge==0.6.2, Python 3.12)"
    try:
        # Bridge's import sets up logging to the then-current stdout; keep stdout for --json output
        with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stderr):
            warnings.simplefilter("ignore")
            for module in ("megatron.bridge.training.config", "megatron.bridge.training.utils.omegaconf_utils",
                           "megatron.bridge.models.gpt_provider"):
                importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - an import failure is the answer, not a crash
        frames = _bridge_frames(exc)
        chain = f" ({frames[-1]}, reached from {frames[0]})" if len(frames) > 1 else (f" ({frames[0]})" if frames else "")
        hint = ""
        if getattr(exc, "name", "") and str(getattr(exc, "name")).startswith("transformer_engine"):
            hint = ": Bridge imports Transformer Engine when its package loads; install transformer-engine[pytorch]"
        return False, f"megatron-bridge {version} cannot be imported: {type(exc).__name__}: {exc}{chain}{hint}"
    return True, f"megatron-bridge {version}"


def _split(cfg: CanonicalConfig) -> tuple[dict[str, Any], list[str], list[str]]:
    """(nested values to merge, Hydra overrides as written, keys not passed to Bridge)."""
    hydra = [text for text, _line in cfg.overrides]
    passed: dict[str, Any] = {}
    skipped: list[str] = []
    for key, value in cfg:
        section, _, rest = key.partition(".")
        if hydra:  # the overrides themselves go to Hydra's parser; nothing is merged twice
            continue
        if section in SKIPPED_SECTIONS or not rest or (section == "dataset" and rest.split(".")[0] not in DATASET_KEYS):
            skipped.append(key)
            continue
        passed[key] = value
    nested = CanonicalConfig(values=passed).to_nested()
    return nested, hydra, skipped


def _base_container() -> Any:
    from skill_tools.rules.bridge_recipe import tiny_gpt_recipe

    return tiny_gpt_recipe()


def _merge_base(user: dict[str, Any], hydra: list[str]) -> dict[str, Any]:
    """The oracle's small sizes, where the input (YAML values or Hydra overrides) does not set them."""
    named = {o.lstrip("+~").split("=", 1)[0] for o in hydra}
    base: dict[str, Any] = {"model": {}, **{k: dict(v) for k, v in BASE_OTHER.items()}}
    for key, value in BASE_MODEL.items():
        if key not in user.get("model", {}) and f"model.{key}" not in named:
            base["model"][key] = value
    if "seq_length" in user.get("model", {}) and "seq_length" not in user.get("dataset", {}):
        base["dataset"]["seq_length"] = user["model"]["seq_length"]
    return base


class _SkippedKeys(logging.Handler):
    """Collects the keys Bridge's ``_apply_overrides`` logs as "not found ... Skipping"."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _world_size(container: Any) -> int:
    """The smallest world the input's model parallelism needs (tensor x pipeline x context)."""
    m = container.model
    sizes = [getattr(m, f"{k}_parallel_size", 1) or 1 for k in ("tensor_model", "pipeline_model", "context")]
    return max(1, sizes[0] * sizes[1] * sizes[2])


@contextlib.contextmanager
def _env(name: str, value: str):
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def build(cfg: CanonicalConfig) -> tuple[Any, list[str], list[str]]:
    """A ConfigContainer with the input applied on Bridge's override path; also the keys not passed
    and Bridge's own override warnings. Raises what Bridge raises (OverridesError for Hydra)."""
    from omegaconf import OmegaConf

    from megatron.bridge.training.utils import omegaconf_utils as ou

    user, hydra, skipped = _split(cfg)
    container = _base_container()
    handler = _SkippedKeys()
    ou.logger.addHandler(handler)
    try:
        omega, excluded = ou.create_omegaconf_dict_config(container)
        omega = OmegaConf.merge(omega, OmegaConf.create(_merge_base(user, hydra)))
        if user:
            omega = OmegaConf.merge(omega, OmegaConf.create(user))
        if hydra:
            omega = ou.parse_hydra_overrides(omega, hydra)
        ou.apply_overrides(container, OmegaConf.to_container(omega, resolve=True), excluded)
    finally:
        ou.logger.removeHandler(handler)
    return container, skipped, handler.messages


def run(cfg: CanonicalConfig | dict[str, Any]) -> dict[str, Any]:
    """Bridge's verdict on one config; never raises. ``stage`` says where Bridge refused it:
    ``overrides`` (Hydra/OmegaConf), ``validate`` (ConfigContainer.validate) or ``provider``."""
    if not isinstance(cfg, CanonicalConfig):
        cfg = CanonicalConfig.from_nested(cfg)
    ok, line = availability()
    if not ok:
        return {"ran": False, "reason": line}
    version = installed_version("megatron-bridge")
    stage, error = "overrides", None
    skipped: list[str] = []
    notes: list[str] = []
    caught: list[str] = []
    from megatron.bridge.training.config import runtime_config_update

    world = None
    with warnings.catch_warnings(record=True) as records, contextlib.redirect_stdout(sys.stderr):
        warnings.simplefilter("always")
        try:
            container, skipped, notes = build(cfg)
            stage = "validate"
            world = _world_size(container)
            with _env("WORLD_SIZE", str(world)):
                runtime_config_update(container)
            stage = "provider"
            container.model.transformer_layer_spec = _stop_at_layer_spec
            container.model.provide()
            error = RuntimeError("GPTModelProvider.provide() returned without calling transformer_layer_spec")
        except _ReachedLayerSpec:
            error = None
        except Exception as exc:  # noqa: BLE001 - Bridge's exception *is* the verdict
            error = exc
    for w in records:
        text = str(w.message)
        if "graph" in text.lower() or "scope" in text.lower():
            caught.append(text)
    text = f"{error}" if error is not None else None
    if error is not None and error.__cause__ is not None and stage == "overrides":
        text = f"{error}"  # OverridesError already carries Hydra's message
    return {
        "ran": True, "bridge_version": version, "ok": error is None,
        "stage": None if error is None else stage,
        "error_type": type(error).__name__ if error is not None else None,
        "error": text,
        "rule": match_rule(error, cfg) if error is not None else None,
        "warnings": list(dict.fromkeys(caught)),
        "world_size": world,
        "ignored_keys": skipped,
        "bridge_skipped": [m for m in notes if "Skipping" in m],
    }


def match_rule(error: BaseException, cfg: CanonicalConfig | None = None) -> str | None:
    """The catalog rule whose ``bridge_message`` (or, for megatron-core's checks that ``validate()``
    runs through ``model.finalize()``, ``mcore_message``) matches Bridge's exception."""
    from skill_tools.rules import catalog, oracle

    text = str(error)
    for rule in catalog.load().rules:
        if rule.matches_bridge(text):
            return rule.id
    frames = traceback.extract_tb(error.__traceback__)
    raised_in_mcore = bool(frames) and "/megatron/core/" in frames[-1].filename.replace("\\", "/")
    if isinstance(error, KeyError) or raised_in_mcore:
        return oracle.match_rule(error, cfg.section("model") if cfg is not None else None)
    return None


def checkable_rules() -> set[str]:
    """Catalog rules whose verdict Bridge's code path gives: a Bridge or megatron-core message to match."""
    from skill_tools.rules import catalog

    return {r.id for r in catalog.load().rules if r.bridge_message or r.mcore_message}


def agrees(catalog_errors: set[str], verdict: dict[str, Any]) -> bool:
    """Both accept, or both reject and the rule Bridge's exception maps to is among the catalog's."""
    return bool(catalog_errors) == (not verdict["ok"]) and (verdict["ok"] or verdict["rule"] in catalog_errors)
