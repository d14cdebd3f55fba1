"""Era-correct CUDA-graph overrides: what Bridge's ``_set_cuda_graph_overrides``
(``scripts/performance/utils/overrides.py``, main @067f987) does, for either MCore era.

``plan(cfg, impl, scope, ...)`` returns the key/values to write (``REMOVE`` deletes a key the
target era does not know), the config after applying them, and the findings of the result;
an illegal result is refused. ``rewrite_yaml`` edits a user's YAML in place (only the changed
keys' text); ``write_atomic`` never leaves a partial file.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools.config.era import Era, GraphIntent, intent_values, read_intent
from skill_tools.config.model import REMOVE, CanonicalConfig, as_name_list
from skill_tools.errors import InputError
from skill_tools.rules.engine import Finding, check, has_errors

PERF_HARNESS_SCOPES = ("full_iteration", "attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba")


@dataclass
class Plan:
    changes: dict[str, Any]
    after: CanonicalConfig
    findings: list[Finding]
    era: Era
    intent: GraphIntent
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "era": self.era.name, "mcore_version": self.era.mcore_version,
                "changes": dict(self.changes), "notes": list(self.notes),
                "findings": [f.to_dict() for f in self.findings]}


def parse_scope(scope: str | list[str] | None) -> list[str] | None:
    if scope is None:
        return None
    names = as_name_list(scope) if not isinstance(scope, list) else [s for s in scope if s not in ("", "full")]
    return names


def plan(cfg: CanonicalConfig, impl: str | None, scope: str | list[str] | None, era: Era, *,
         warmup: int | None = None, inference_scope: str | None = None, env: dict[str, str] | None = None) -> Plan:
    """The overrides for ``impl``/``scope`` (``scope=None`` keeps the current modules)."""
    current = read_intent(cfg, era=era)
    names = parse_scope(scope)
    notes: list[str] = []
    bad = [n for n in (names or []) if n not in PERF_HARNESS_SCOPES + ("full_iteration_inference",)]
    if bad:
        from skill_tools.rules.context import SCOPE_ALIASES, suggest

        s = suggest(bad[0], PERF_HARNESS_SCOPES, SCOPE_ALIASES)
        raise InputError("--scope", f"unknown scope {bad[0]!r}" + (f" (did you mean {s!r}?)" if s else ""),
                         hint=f"valid: {', '.join(PERF_HARNESS_SCOPES)}")
    new_impl = impl if impl is not None else current.impl
    if new_impl not in era.impls + ("full_iteration",):
        raise InputError("--impl", f"unknown impl {new_impl!r}", hint=f"valid: {', '.join(era.impls)}")
    if names is not None and "full_iteration" in names:
        if names != ["full_iteration"]:
            raise InputError("--scope", "full_iteration cannot be combined with other scopes",
                             hint="use --scope full_iteration alone, or per-layer scopes with --impl transformer_engine")
        if new_impl == "transformer_engine":
            raise InputError("--scope", "full_iteration cannot use --impl transformer_engine",
                             hint="use --impl full_iteration (or local with --scope full_iteration)")
        new_impl, names = "full_iteration", []
    inf = inference_scope if inference_scope is not None else current.inference_scope
    if names is not None and "full_iteration_inference" in names:
        names = [n for n in names if n != "full_iteration_inference"]
        new_impl, inf = "local", "block"
        notes.append("full_iteration_inference migrated to cuda_graph_impl='local' + inference_cuda_graph_scope='block'")
    if inference_scope is not None and not era.has_inference_scope and inference_scope != "none":
        if inference_scope == "block" and "full_iteration_inference" in era.module_values:
            notes.append(f"megatron-core {era.mcore_version}: block inference graphs are spelled cuda_graph_scope=['full_iteration_inference']")
        else:
            raise InputError("--inference-scope", f"megatron-core {era.mcore_version} has no inference_cuda_graph_scope",
                             hint="upgrade to megatron-core 0.18+ (or 0.17 for the full_iteration_inference scope)")
    modules = tuple(current.modules if names is None else names)
    intent = GraphIntent(impl=new_impl, modules=() if new_impl in ("none", "full_iteration") else modules,
                         inference_scope=inf if era.has_inference_scope or inf == "block" else None,
                         warmup_steps=warmup)
    changes: dict[str, Any] = dict(intent_values(intent, era))
    if era.name == "legacy":
        for key in ("model.cuda_graph_modules", "model.inference_cuda_graph_scope"):
            if cfg.has(key):
                changes[key] = REMOVE
    elif not cfg.has("model.cuda_graph_scope") and cfg.fmt in ("megatron_lm", "run_script"):
        # flags are the whole launch: an absent --cuda-graph-scope is unset. A Bridge YAML, Hydra or
        # Python file is laid over a recipe that may set cuda_graph_scope (Llama-3's "full", recipes/llama
        # @v0.6.0 l.93), which megatron-core 0.18+ refuses beside cuda_graph_modules: keep the explicit null.
        changes.pop("model.cuda_graph_scope", None)
    for key in ("model.enable_cuda_graph", "model.external_cuda_graph"):
        if cfg.get(key):
            changes[key] = False
    on = new_impl != "none"
    changes["rng.te_rng_tracker"] = on
    changes["model.use_te_rng_tracker"] = on
    if new_impl == "full_iteration":
        changes["rerun_state_machine.check_for_nan_in_loss"] = False
        changes["ddp.check_for_nan_in_grad"] = False
    after = apply_changes(cfg, changes)
    findings = check(after, era, env=env)
    return Plan(changes=changes, after=after, findings=findings, era=era, intent=intent, notes=notes)


def apply_changes(cfg: CanonicalConfig, changes: dict[str, Any]) -> CanonicalConfig:
    out = cfg.copy()
    for key, value in changes.items():
        if key.startswith("env."):
            out.env[key[4:]] = str(value)
        elif value == REMOVE:
            out.unset(key)
        else:
            out.set(key, value)
    return out


def override_values(changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` as values to render: ``REMOVE`` becomes None (a rendered override clears the key)."""
    return {k: (None if v == REMOVE else v) for k, v in changes.items()}


# --------------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------------


def rewrite_yaml(text: str, changes: dict[str, Any], source: str = "<yaml>") -> str:
    """Apply ``changes`` to YAML text: only the changed keys' text changes, every other byte
    (comments, key order, quoting, indentation) stays (:mod:`skill_tools.config.yaml_edit`)."""
    from skill_tools.config.yaml_edit import edit_yaml

    return edit_yaml(text, changes, source)[0]


def unified_diff(before: str, after: str, name: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        fromfile=f"a/{name}", tofile=f"b/{name}"))


def write_atomic(path: str | Path, text: str) -> None:
    """Write via a temp file in the same folder and ``os.replace``: a crash or kill mid-write
    leaves the old file intact, never a partial one (mode, owner and symlinks are kept; see
    :mod:`skill_tools.output_file`)."""
    from skill_tools.output_file import write_text

    write_text(path, text)
