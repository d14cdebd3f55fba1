"""Megatron-Core API eras, hidden behind a tiny API.

Two eras of the CUDA-graph API exist (read from ``megatron/core/transformer/transformer_config.py``,
``enums.py`` and ``cuda_graph_config.py`` at tags core_v0.16.0 … core_v0.19.0):

* **legacy** (0.16–0.17): ``cuda_graph_impl`` in {none, local, transformer_engine};
  ``cuda_graph_scope`` is a list of ``CudaGraphScope`` names {full_iteration, attn, mlp, moe,
  moe_router, moe_preprocess, mamba} (0.17 adds ``full_iteration_inference``). Full-iteration
  capture is ``cuda_graph_impl="local"`` + ``cuda_graph_scope=["full_iteration"]``.
* **current** (0.18+): ``cuda_graph_impl`` adds ``full_iteration``; per-layer coverage moves to
  ``cuda_graph_modules`` {attn, mlp, moe, moe_router, moe_preprocess, mamba}; inference graphs
  are ``inference_cuda_graph_scope`` in {none, layer, block}. ``cuda_graph_scope`` and the
  ``full_iteration``/``full_iteration_inference`` scope values are still accepted and migrated
  in ``TransformerConfig.__post_init__`` with a deprecation warning.

Everything else in this package asks this module, never the version number, what the
keys are. :class:`GraphIntent` is the era-neutral meaning of a config's graph settings.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any

from skill_tools.config.model import CanonicalConfig, as_name_list
from skill_tools.errors import InputError, SkillToolsWarning

#: The newest release each era was checked against; used when nothing is installed.
DEFAULT_CURRENT = "0.19.2"
DEFAULT_LEGACY = "0.16.1"

LAYER_MODULES: tuple[str, ...] = ("attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba")
INFERENCE_SCOPES: tuple[str, ...] = ("none", "layer", "block")


@dataclass(frozen=True)
class Era:
    """What one megatron-core release accepts for CUDA-graph settings."""

    name: str  # "legacy" | "current"
    mcore_version: str
    impls: tuple[str, ...]
    modules_key: str  # "cuda_graph_scope" | "cuda_graph_modules"
    module_values: tuple[str, ...]  # valid entries of modules_key
    has_inference_scope: bool
    te_version: str | None = None
    #: Set when the version is newer than any release the rules were checked against.
    note: str | None = None

    @property
    def label(self) -> str:
        return "0.16–0.17 (cuda_graph_scope)" if self.name == "legacy" else "0.18+ (cuda_graph_modules)"

    @property
    def version_tuple(self) -> tuple[int, int, int]:
        return parse_version(self.mcore_version)

    def since(self, release: str) -> bool:
        """Whether this megatron-core is ``release`` or newer (``"0.19"``, ``"0.18.1"``)."""
        return self.version_tuple >= parse_version(release, "since")

    def until(self, release: str) -> bool:
        """Whether this megatron-core is older than ``release`` (the release that changed it)."""
        return not self.since(release)

    def has(self, capability: str) -> bool:
        """Whether this release has a named capability of :data:`CAPABILITIES`."""
        try:
            since, until = CAPABILITIES[capability]
        except KeyError:
            raise KeyError(f"unknown capability {capability!r}; known: {', '.join(CAPABILITIES)}") from None
        return self.since(since) and (until is None or self.until(until))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "mcore_version": self.mcore_version,
            "te_version": self.te_version,
            "impls": list(self.impls),
            "modules_key": self.modules_key,
            "module_values": list(self.module_values),
            "has_inference_scope": self.has_inference_scope,
            **({"note": self.note} if self.note else {}),
        }


#: Named capabilities of megatron-core releases: name -> (since, until or None). Callers ask
#: ``era.has(name)``; nothing outside this module compares version numbers.
CAPABILITIES: dict[str, tuple[str, str | None]] = {
    # cuda_graph_impl="full_iteration" and cuda_graph_modules (transformer_config.py @core_v0.18.0)
    "cuda_graph_modules": ("0.18", None),
    "full_iteration_impl": ("0.18", None),
    "inference_cuda_graph_scope": ("0.18", None),
    # CudaGraphScope.full_iteration_inference (enums.py @core_v0.17.0)
    "full_iteration_inference_scope": ("0.17", None),
    # the megatron-core wheel ships megatron/training (Megatron-LM's pretrain) from 0.18
    "megatron_training_in_wheel": ("0.18", None),
    # TELayerNormColumnParallelLinear casts an fp32 residual stream before TE's fused norm: Megatron-LM
    # 7a76dff (PR #6272), after core_v0.19.0 (transformer_engine.py l.1328-1336 @core_v0.19.0 does not)
    "te_norm_linear_casts_fp32_input": ("0.20", None),
}

_VERSION_RE = re.compile(r"^\s*v?(\d{1,9})\.(\d{1,9})(?:\.(\d{1,9}))?(?![\d])")
_EXAMPLE = {"--mcore-version": "0.19.2", "--te-version": "2.10"}


def parse_version(text: str, flag: str = "--mcore-version") -> tuple[int, int, int]:
    """``"0.19.2"``, ``"0.18"``, ``"0.16.0rc1+abc"`` -> (0, 19, 2), (0, 18, 0), (0, 16, 0).

    ``flag`` names the argument the text came from, for the error."""
    m = _VERSION_RE.match(str(text))
    if not m:
        raise InputError(flag, f"cannot read version {str(text)[:60]!r}",
                         hint=f"expected X.Y or X.Y.Z, e.g. {_EXAMPLE.get(flag, '1.2.3')}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def era_for(version: str, te_version: str | None = None) -> Era:
    """The era of a megatron-core version string."""
    v = parse_version(version)
    if v < (0, 16, 0):
        raise InputError(
            "--mcore-version",
            f"megatron-core {version} is older than the supported eras",
            hint="supported: 0.16–0.17 (cuda_graph_scope) and 0.18+ (cuda_graph_modules); upgrade megatron-core",
        )
    if v < (0, 18, 0):
        scopes = ("full_iteration",) + LAYER_MODULES
        if v >= (0, 17, 0):
            scopes += ("full_iteration_inference",)
        return Era(
            name="legacy",
            mcore_version=version,
            impls=("none", "local", "transformer_engine"),
            modules_key="cuda_graph_scope",
            module_values=scopes,
            has_inference_scope=False,
            te_version=te_version,
        )
    return Era(
        name="current",
        mcore_version=version,
        impls=("none", "local", "transformer_engine", "full_iteration"),
        modules_key="cuda_graph_modules",
        module_values=LAYER_MODULES,
        has_inference_scope=True,
        te_version=te_version,
    )


def installed_version(*dists: str) -> str | None:
    """Version of the first installed distribution among ``dists``, read from metadata (no import,
    so it is cheap; several names because TE ships as transformer-engine, -cu12, -cu13)."""
    for dist in dists:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


TE_DISTRIBUTIONS = ("transformer-engine", "transformer_engine", "transformer-engine-cu12", "transformer-engine-cu13")


def installed_te_version() -> str | None:
    return installed_version(*TE_DISTRIBUTIONS)


def resolve_era(override: str | None = None, te_override: str | None = None) -> Era:
    """``--mcore-version`` if given, else the installed megatron-core, else the newest era.

    A version newer than the newest release the rules were checked against (``DEFAULT_CURRENT``)
    gets the newest era's rules, with a :class:`NewerVersionWarning` and ``Era.note`` saying so."""
    if te_override is not None:
        parse_version(te_override, "--te-version")
    version = override or installed_version("megatron-core") or DEFAULT_CURRENT
    era = era_for(version, te_override or installed_te_version())
    if parse_version(version)[:2] > parse_version(DEFAULT_CURRENT)[:2]:
        note = (f"megatron-core {version} is newer than the newest release these rules were checked "
                f"against ({DEFAULT_CURRENT}); using the {era.label} era's rules")
        warnings.warn(NewerVersionWarning(note), stacklevel=2)
        era = replace(era, note=note)
    return era


class NewerVersionWarning(SkillToolsWarning):
    """A megatron-core version newer than any the rules were checked against."""


# --------------------------------------------------------------------------------------------
# Era-neutral meaning of the graph settings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphIntent:
    """What the config asks for, whichever era's keys spell it.

    ``impl`` uses the current era's vocabulary: legacy ``local`` + ``["full_iteration"]``
    reads as ``full_iteration``. ``modules`` are per-layer capture regions (empty = whole
    layer). ``inference_scope`` is None when unset (MCore derives it from ``impl``).
    """

    impl: str = "none"
    modules: tuple[str, ...] = ()
    inference_scope: str | None = None
    warmup_steps: int | None = None
    #: How each field was spelled in the input, e.g. {"impl": "model.enable_cuda_graph"}.
    spelled_by: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def enabled(self) -> bool:
        return self.impl != "none"

    @property
    def full_iteration(self) -> bool:
        return self.impl == "full_iteration"

    @property
    def effective_inference_scope(self) -> str:
        """MCore 0.18+: unset means ``layer`` for local, ``none`` otherwise."""
        if self.inference_scope is not None:
            return self.inference_scope
        return "layer" if self.impl == "local" else "none"


def read_intent(cfg: CanonicalConfig, section: str = "model", era: Era | None = None) -> GraphIntent:
    """Read the graph settings of either era (and the deprecated boolean flags).

    ``era`` selects whose migration applies to a deprecated ``full_iteration`` scope value
    with ``cuda_graph_impl="none"``: megatron-core 0.18+ turns it into
    ``cuda_graph_impl="full_iteration"`` (``cuda_graph_config.py``
    ``get_deprecated_cuda_graph_modules_migration``), 0.16–0.17 leave graphs off. ``None``
    means the newest era.
    """
    migrates_none = era is None or era.name == "current"
    p = section + "."
    spelled: dict[str, str] = {}
    impl = cfg.get(p + "cuda_graph_impl")
    if impl is not None:
        spelled["impl"] = p + "cuda_graph_impl"
    impl = str(impl) if impl is not None else "none"
    if impl == "none":
        if cfg.get(p + "enable_cuda_graph"):
            impl, spelled["impl"] = "local", p + "enable_cuda_graph"
        elif cfg.get(p + "external_cuda_graph"):
            impl, spelled["impl"] = "transformer_engine", p + "external_cuda_graph"

    raw: list[str] = []
    for key in ("cuda_graph_modules", "cuda_graph_scope"):
        if cfg.has(p + key) and cfg.get(p + key) is not None:
            names = as_name_list(cfg.get(p + key))
            if names or "modules" not in spelled:
                spelled["modules"] = p + key
            raw.extend(n for n in names if n not in raw)

    inference = cfg.get(p + "inference_cuda_graph_scope")
    if inference is not None:
        spelled["inference_scope"] = p + "inference_cuda_graph_scope"
        inference = str(inference).rsplit(".", 1)[-1]
    modules: list[str] = []
    for name in raw:
        if name == "full_iteration":
            if impl == "local" or (impl == "none" and migrates_none):
                impl = "full_iteration"
                spelled["impl"] = f"{spelled.get('impl', p + 'cuda_graph_impl')}+{spelled['modules']}"
        elif name == "full_iteration_inference":
            if impl == "local" and inference in (None, "block"):
                inference = "block"
                spelled["inference_scope"] = spelled["modules"]
        else:
            modules.append(name)
    warmup = cfg.get(p + "cuda_graph_warmup_steps")
    return GraphIntent(
        impl=impl,
        modules=tuple(modules),
        inference_scope=inference,
        warmup_steps=int(warmup) if isinstance(warmup, (int, float)) and not isinstance(warmup, bool) else None,
        spelled_by=spelled,
    )


def intent_values(intent: GraphIntent, era: Era, section: str = "model") -> dict[str, Any]:
    """The era-correct key/values that spell ``intent`` (what Bridge's
    ``utils/cuda_graph.py`` ``set_full_iteration_cuda_graph``/``set_cuda_graph_modules`` write).

    Keys that must be cleared are returned with the value ``None`` for the current era's
    deprecated ``cuda_graph_scope`` (Bridge sets it to None) and are absent otherwise.
    """
    p = section + "."
    out: dict[str, Any] = {}
    if era.name == "current":
        out[p + "cuda_graph_impl"] = intent.impl
        out[p + "cuda_graph_modules"] = [] if intent.impl in ("none", "full_iteration") else list(intent.modules)
        out[p + "cuda_graph_scope"] = None
        if intent.inference_scope is not None:
            out[p + "inference_cuda_graph_scope"] = intent.inference_scope
    else:
        if intent.impl == "full_iteration":
            out[p + "cuda_graph_impl"] = "local"
            out[p + "cuda_graph_scope"] = ["full_iteration"]
        else:
            out[p + "cuda_graph_impl"] = intent.impl
            scope = [] if intent.impl == "none" else list(intent.modules)
            if intent.impl == "local" and intent.inference_scope == "block" and "full_iteration_inference" in era.module_values:
                scope = ["full_iteration_inference"]
            out[p + "cuda_graph_scope"] = scope
    if intent.warmup_steps is not None:
        out[p + "cuda_graph_warmup_steps"] = intent.warmup_steps
    return out


@dataclass(frozen=True)
class Migration:
    """A key spelled for the wrong era, and the exact replacement."""

    key: str
    found: Any
    replace_with: dict[str, Any]
    message: str


def migrations(cfg: CanonicalConfig, era: Era, section: str = "model") -> list[Migration]:
    """Keys of ``cfg`` that the target era does not take (or takes only as deprecated)."""
    p = section + "."
    intent = read_intent(cfg, section, era)
    target = intent_values(intent, era, section)
    target = {k: v for k, v in target.items() if v is not None}
    out: list[Migration] = []
    for old, new_impl in (("enable_cuda_graph", "local"), ("external_cuda_graph", "transformer_engine")):
        if cfg.get(p + old):
            out.append(Migration(p + old, cfg.get(p + old), target,
                                 f"{p}{old} is deprecated; use {p}cuda_graph_impl={new_impl!r}"))
    if era.name == "current":
        if cfg.has(p + "cuda_graph_scope") and cfg.get(p + "cuda_graph_scope") not in (None, [], "full"):
            out.append(Migration(p + "cuda_graph_scope", cfg.get(p + "cuda_graph_scope"), target,
                                 f"{p}cuda_graph_scope is deprecated in megatron-core {era.mcore_version}; "
                                 f"MCore migrates it with a warning"))
        elif any(n in ("full_iteration", "full_iteration_inference")
                 for n in as_name_list(cfg.get(p + "cuda_graph_modules"))):
            out.append(Migration(p + "cuda_graph_modules", cfg.get(p + "cuda_graph_modules"), target,
                                 "full_iteration/full_iteration_inference are deprecated cuda_graph_modules values"))
    else:
        for key in ("cuda_graph_modules", "inference_cuda_graph_scope"):
            if cfg.has(p + key):
                out.append(Migration(p + key, cfg.get(p + key), target,
                                     f"{p}{key} does not exist in megatron-core {era.mcore_version} "
                                     f"(added in 0.18)"))
        if cfg.get(p + "cuda_graph_impl") == "full_iteration":
            out.append(Migration(p + "cuda_graph_impl", "full_iteration", target,
                                 f"cuda_graph_impl='full_iteration' does not exist in megatron-core "
                                 f"{era.mcore_version}; use 'local' with cuda_graph_scope=['full_iteration']"))
    return out
