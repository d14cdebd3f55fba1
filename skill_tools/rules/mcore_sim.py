"""What ``TransformerConfig.__post_init__`` does to the CUDA-graph fields, per era, without
importing megatron-core.

MCore normalises before it checks: deprecated booleans become an impl, ``cuda_graph_scope`` is
migrated into ``cuda_graph_modules`` (0.18+), ``"full"`` becomes an empty list, deprecated scope
values move into ``cuda_graph_impl``/``inference_cuda_graph_scope``, and the local impl adds
``moe_router``/``moe_preprocess`` together. The checks in ``checks.py`` run on the result, so
they see what MCore sees. Failures during normalisation are recorded as (rule id, context) in
the order MCore raises them. Read from ``megatron/core/transformer/transformer_config.py`` and
``cuda_graph_config.py`` at core_v0.16.1 and core_v0.19.0 (installed 0.16.1 / 0.19.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.era import Era

LEGACY_SCOPES = ("full_iteration", "attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba")
MODULES = ("attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba")
DEPRECATED_SCOPES = ("full_iteration", "full_iteration_inference")
INFERENCE_SCOPES = ("none", "layer", "block")
ALLOWED_INFERENCE = {
    "none": ("none",),
    "local": ("layer", "block"),
    "transformer_engine": ("none",),
    "full_iteration": ("none",),
}


@dataclass
class Sim:
    """The normalised graph settings, or where normalisation stopped."""

    impl: str = "none"
    modules: list[str] = field(default_factory=list)  # scope names (legacy) / module names (current)
    inference_scope: str | None = None
    #: (rule id, context) for every normalisation failure, in MCore's order.
    errors: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: normalisation stopped: later checks cannot be evaluated
    stopped: bool = False
    #: notes on silent migrations MCore performs (rule id, context)
    notes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def fail(self, rule: str, **ctx: Any) -> "Sim":
        self.errors.append((rule, ctx))
        self.stopped = True
        return self


def _raw_list(value: Any, *, legacy: bool) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        if legacy:
            return value.split(",")
        return value.split(",") if value else []
    return [value]


def simulate(model: dict[str, Any], era: Era) -> Sim:
    """Normalise ``model`` (section keys without prefix, MCore defaults filled in) for ``era``."""
    return _simulate_legacy(model, era) if era.name == "legacy" else _simulate_current(model, era)


def _deprecated_booleans(model: dict[str, Any], sim: Sim) -> str | None:
    impl = model.get("cuda_graph_impl", "none")
    enable, external = bool(model.get("enable_cuda_graph")), bool(model.get("external_cuda_graph"))
    if enable or external:
        # MCore stops here; the catalog goes on with the explicit impl so that the other
        # problems of the config are reported in the same run.
        if impl != "none":
            sim.fail("deprecated-flag-conflict", problem="enable_cuda_graph/external_cuda_graph together with cuda_graph_impl",
                     impl=impl)
            sim.stopped = False
            return impl
        if enable and external:
            sim.fail("deprecated-flag-conflict", problem="enable_cuda_graph and external_cuda_graph both set", impl=impl)
            sim.stopped = False
            return "local"
        impl = "local" if enable else "transformer_engine"
    return impl


def _simulate_legacy(model: dict[str, Any], era: Era) -> Sim:
    sim = Sim()
    for key in ("cuda_graph_modules", "inference_cuda_graph_scope"):
        if key in model:
            return sim.fail("era-key-unknown", key=key)
    impl = _deprecated_booleans(model, sim)
    if impl is None:
        return sim
    scope = _raw_list(model.get("cuda_graph_scope", "full"), legacy=True)
    names: list[str] = []
    if all(isinstance(s, str) for s in scope):
        if "full" in scope:
            if scope != ["full"]:
                return sim.fail("scope-full-alone", key="cuda_graph_scope", value=scope)
            scope = []
        for s in scope:
            if s not in era.module_values:
                return sim.fail("scope-unknown", key="cuda_graph_scope", value=s, valid=list(era.module_values))
            names.append(s)
    else:
        bad = [s for s in scope if not isinstance(s, str)]
        return sim.fail("scope-unknown", key="cuda_graph_scope", value=bad[0], valid=list(era.module_values))
    sim.impl, sim.modules = impl, names
    if impl != "none" and impl not in ("transformer_engine", "local"):
        return sim.fail("impl-unknown", value=impl, valid=list(era.impls))
    if impl == "none" and "full_iteration" in names:
        sim.notes.append(("full-iteration-scope-ignored", {}))
    return sim


def _simulate_current(model: dict[str, Any], era: Era) -> Sim:
    sim = Sim()
    impl = _deprecated_booleans(model, sim)
    if impl is None:
        return sim
    modules_value = model.get("cuda_graph_modules", "full")
    scope_value = model.get("cuda_graph_scope")
    src = "cuda_graph_scope" if scope_value is not None else "cuda_graph_modules"
    if scope_value is not None:
        if modules_value not in ("full", None, []):
            return sim.fail("scope-and-modules-both", scope=scope_value, modules=modules_value)
        modules_value = scope_value
        sim.notes.append(("deprecated-cuda-graph-scope", {"value": scope_value}))
    raw = _raw_list(modules_value, legacy=False)
    if "full" in raw:
        if raw != ["full"]:
            return sim.fail("scope-full-alone", key=src, value=raw)
        raw = []
    modules: list[str] = []
    deprecated: list[str] = []
    for s in raw:
        if not isinstance(s, str):
            return sim.fail("scope-unknown", key=src, value=s, valid=list(MODULES))
        if s in DEPRECATED_SCOPES:
            deprecated.append(s)
        elif s in MODULES:
            modules.append(s)
        else:
            return sim.fail("scope-unknown", key=src, value=s, valid=list(MODULES) + list(DEPRECATED_SCOPES))
    inference = model.get("inference_cuda_graph_scope")
    if deprecated:
        if len(set(deprecated)) > 1:
            return sim.fail("deprecated-scope-multiple", values=deprecated)
        if isinstance(inference, str) and inference not in INFERENCE_SCOPES:
            return sim.fail("inference-scope-unknown", value=inference, valid=list(INFERENCE_SCOPES))
        scope = deprecated[0]
        if scope == "full_iteration":
            if impl not in ("none", "local", "full_iteration"):
                return sim.fail("full-iteration-impl", impl=impl, scope=scope)
            if inference not in (None, "none"):
                return sim.fail("deprecated-scope-inference-conflict", scope=scope, inference=inference)
            if impl == "none":
                sim.notes.append(("full-iteration-scope-enables", {}))
            impl = "full_iteration"
        else:
            if impl not in ("none", "local"):
                return sim.fail("full-iteration-impl", impl=impl, scope=scope)
            if inference not in (None, "block"):
                return sim.fail("deprecated-scope-inference-conflict", scope=scope, inference=inference)
            if impl != "none":
                inference = "block"
    sim.impl, sim.modules = impl, modules
    if impl not in era.impls:
        return sim.fail("impl-unknown", value=impl, valid=list(era.impls))
    if inference is None:
        inference = "layer" if impl == "local" else "none"
    elif inference not in INFERENCE_SCOPES:
        return sim.fail("inference-scope-unknown", value=inference, valid=list(INFERENCE_SCOPES))
    sim.inference_scope = inference
    if inference not in ALLOWED_INFERENCE[impl]:
        sim.fail("inference-scope-impl", value=inference, impl=impl, allowed=list(ALLOWED_INFERENCE[impl]))
        sim.stopped = False  # an independent check: later checks still hold
    if impl == "full_iteration" and modules:
        sim.fail("full-iteration-modules-not-empty", modules=modules)
        sim.stopped = False
    return sim


def augmented_modules(sim: Sim) -> list[str]:
    """MCore's local impl does not distinguish moe_router/moe_preprocess: it adds both."""
    mods = list(sim.modules)
    if sim.impl == "local" and ("moe_router" in mods or "moe_preprocess" in mods):
        for name in ("moe_router", "moe_preprocess"):
            if name not in mods:
                mods.append(name)
    return mods
