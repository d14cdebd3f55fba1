"""The variants a plan measures: eager, the config's own graph settings, and what ``recommend``
proposes for it (and its "next" step). Each is checked by the validator on the user's config
with the variant's overrides, so a rejected variant is named with its rules before any GPU time."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from skill_tools.config.era import Era, read_intent
from skill_tools.config.model import CanonicalConfig
from skill_tools.config.shape import ModelShape


@dataclass(frozen=True)
class Candidate:
    name: str
    impl: str
    modules: tuple[str, ...]
    why: str
    rejected_by: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["modules"], d["rejected_by"] = list(self.modules), list(self.rejected_by)
        return d


def variant_name(impl: str, modules: tuple[str, ...]) -> str:
    """The harness's variant names (``eager``, ``full_iteration``, ``local``, ``te:attn+mlp``, ``te:layer``)."""
    if impl == "none":
        return "eager"
    if impl == "transformer_engine":
        return "te:" + ("+".join(modules) if modules else "layer")
    return impl


def _next_modules(next_step: str | None, modules: list[str]) -> list[str] | None:
    if not next_step:
        return None
    m = re.search(r"--scope\s+([\w,]+)", next_step)
    if m:
        return m.group(1).split(",")
    m = re.search(r"then add (\w+)", next_step)
    if m and m.group(1) not in modules:
        return [m.group(1), *modules]
    return None


def _unbuildable(impl: str, modules: tuple[str, ...], shape: ModelShape) -> str | None:
    moe_scopes = {"moe", "moe_router", "moe_preprocess"} & set(modules)
    if moe_scopes and not shape.is_moe:
        return f"scope(s) {sorted(moe_scopes)} need MoE layers"
    if "moe" in modules and shape.moe_expert_capacity_factor is None:
        return "'moe' captures the token dispatch: drop-and-pad MoE only"
    if "mlp" in modules and shape.is_moe and all(shape.moe_layers()):
        return "'mlp' graphs dense MLPs; every layer is an MoE layer"
    if "mamba" in modules:
        return "the engines build no Mamba layers"
    return None


def candidates(cfg: CanonicalConfig, shape: ModelShape, era: Era) -> tuple[list[Candidate], list[str]]:
    """(variants in run order, notes on variants left out and why)."""
    from skill_tools.overrides import plan as override_plan
    from skill_tools.recommend import recommend

    proposals: list[tuple[str, tuple[str, ...], str]] = [("none", (), "baseline")]
    intent = read_intent(cfg, era=era)
    if intent.impl != "none":
        proposals.append((intent.impl, tuple(intent.modules), "the config's own graph settings"))
    rec = recommend(cfg, era)
    if rec.impl == "none":
        lead = f"recommend proposes no graphs for this config: {rec.reason}"
        tried = "; ".join(f"{r['impl']} {','.join(r['scope'])}: {', '.join(r['errors'])}" for r in rec.rejected if r["errors"])
        early_notes = [lead + (f" (rejected: {tried})" if tried else "")]
    else:
        early_notes = []
        proposals.append((rec.impl, tuple(rec.scope), f"recommend: {rec.reason}"))
        nxt = _next_modules(rec.next_step, list(rec.scope))
        named = re.search(r"--impl\s+(\w+)", rec.next_step or "")
        if nxt and (named.group(1) if named else rec.impl) == "transformer_engine":
            proposals.append(("transformer_engine", tuple(nxt), f"recommend's next step: {rec.next_step}"))
    out: list[Candidate] = []
    notes: list[str] = list(early_notes)
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for impl, modules, why in proposals:
        key = (impl, modules if impl == "transformer_engine" else ())
        if key in seen:
            continue
        seen.add(key)
        name = variant_name(*key)
        problem = _unbuildable(impl, modules, shape)
        if problem:
            notes.append(f"{name} left out: {problem} ({why})")
            continue
        rejected: tuple[str, ...] = ()
        if impl != "none":
            p = override_plan(cfg, impl, list(modules) if impl == "transformer_engine" else [], era)
            rejected = tuple(sorted({f.rule for f in p.findings if f.severity == "error"}))
        out.append(Candidate(name, impl, key[1], why, rejected))
    return out, notes


def parse_variant(name: str) -> tuple[str, tuple[str, ...]]:
    """``eager`` / ``full_iteration`` / ``local`` / ``te:layer`` / ``te:attn+mlp`` -> (impl, modules)."""
    if name == "eager":
        return "none", ()
    if name in ("full_iteration", "local"):
        return name, ()
    if name.startswith("te:"):
        rest = name[3:]
        return "transformer_engine", () if rest == "layer" else tuple(m for m in rest.split("+") if m)
    raise ValueError(f"unknown variant {name!r}: eager, full_iteration, local, te:layer or te:MODULE+MODULE")


def select(cands: list[Candidate], names: list[str], cfg: CanonicalConfig, shape: ModelShape,
           era: Era) -> list[Candidate]:
    """The variants ``--variants`` names, in its order, eager first; a name the plan did not propose
    is added as named (ValueError when the model cannot run it)."""
    from skill_tools.overrides import plan as override_plan

    by_name = {c.name: c for c in cands}
    out = [by_name.get("eager") or Candidate("eager", "none", (), "baseline")]
    for name in names:
        if name == "eager" or any(c.name == name for c in out):
            continue
        if name in by_name:
            out.append(by_name[name])
            continue
        impl, modules = parse_variant(name)
        problem = _unbuildable(impl, modules, shape)
        if problem:
            raise ValueError(f"{name}: {problem}")
        p = override_plan(cfg, impl, list(modules) if impl == "transformer_engine" else [], era)
        rejected = tuple(sorted({f.rule for f in p.findings if f.severity == "error"}))
        out.append(Candidate(name, impl, modules, "named by --variants", rejected))
    return out
