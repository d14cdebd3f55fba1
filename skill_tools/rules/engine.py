"""Run the catalog against a config: ``check(cfg, era) -> list[Finding]``.

No torch or megatron import happens here; the oracle (``oracle.py``) is separate and optional.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from skill_tools.config.era import Era, read_intent, resolve_era
from skill_tools.config.model import CanonicalConfig
from skill_tools.rules import catalog as catalog_mod
from skill_tools.rules.context import Ctx
from skill_tools.rules.mcore_sim import simulate

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass
class Finding:
    """One rule that fired: what, where, why, and the overrides that resolve it."""

    rule: str
    severity: str
    keys: list[str]
    message: str
    fix: dict[str, Any]
    source: str  # citation: repo file@tag
    level: str = ""
    why: str = ""
    pain_point: str | None = None
    location: str | None = None
    docs: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "keys": list(self.keys), "message": self.message,
                "fix": dict(self.fix), "source": self.source, "level": self.level, "why": self.why,
                "pain_point": self.pain_point, "location": self.location, "docs": self.docs}

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.severity}: [{self.rule}] {self.message}"


class _SafeFormat(dict):
    def __missing__(self, key: str) -> str:
        return ""


def _format(template: str, data: dict[str, Any]) -> str:
    try:
        return string.Formatter().vformat(template, (), _SafeFormat(data))
    except (ValueError, IndexError, KeyError):
        return template


def frontend_of(cfg: CanonicalConfig) -> str:
    """Which front end reads the config: Megatron-LM's arguments.py, Bridge, or a bare model config."""
    if cfg.fmt == "megatron_lm":
        return "megatron_lm"
    sections = {k.split(".", 1)[0] for k in cfg.values}
    if sections <= {"model"} and cfg.fmt not in ("run_script", "hydra"):
        return "model_only"
    return "bridge"


def model_view(cfg: CanonicalConfig) -> dict[str, Any]:
    """The model section with MCore defaults for absent keys, as TransformerConfig sees it when
    its CUDA-graph asserts run (after the rewrites ``__post_init__`` makes before them)."""
    model = dict(load_defaults())
    model.update(cfg.section("model"))
    return mcore_rewrites(model)


def mcore_rewrites(model: dict[str, Any]) -> dict[str, Any]:
    """What ``TransformerConfig.__post_init__`` rewrites before its CUDA-graph checks, in both
    eras (transformer_config.py l.1660-1662 and l.1835-1846 @core_v0.19.0, l.1106-1107 and
    l.1255-1266 @core_v0.16.1):

    * a negative ``moe_expert_capacity_factor`` means "no capacity": it becomes None;
    * the deprecated ``moe_layer_recompute`` turns into selective recompute with ``moe`` added to
      ``recompute_modules`` (``["core_attn"]`` when unset), so the graph checks on recomputed
      modules see it. With full recompute MCore raises instead (not a graph rule): left as is.
    """
    out = dict(model)
    factor = out.get("moe_expert_capacity_factor")
    if isinstance(factor, (int, float)) and not isinstance(factor, bool) and factor < 0:
        out["moe_expert_capacity_factor"] = None
    if out.get("moe_layer_recompute") and out.get("recompute_granularity") != "full":
        out["recompute_granularity"] = "selective"
        mods = out.get("recompute_modules")
        mods = ["core_attn"] if mods is None else list(mods)
        if "moe" not in mods:
            mods.append("moe")
        out["recompute_modules"] = mods
    return out


def load_defaults() -> dict[str, Any]:
    return catalog_mod.load().defaults


def bridge_view(cfg: CanonicalConfig) -> CanonicalConfig:
    """What megatron-core sees of a Bridge config: with ``model.cuda_graph_impl`` "none" (or unset),
    Bridge's ``validate_cuda_graph_configuration`` clears ``cuda_graph_modules``/``cuda_graph_scope``
    before ``model.finalize()`` runs megatron-core's post-init (megatron-bridge 0.6.2
    utils/cuda_graph.py, called from training/config.py l.1260), so those values are dropped."""
    if cfg.get("model.cuda_graph_impl", "none") != "none":
        return cfg
    if not (cfg.has("model.cuda_graph_modules") or cfg.has("model.cuda_graph_scope")):
        return cfg
    view = cfg.copy()
    view.unset("model.cuda_graph_modules")
    view.unset("model.cuda_graph_scope")
    return view


def context(cfg: CanonicalConfig, era: Era, env: dict[str, str] | None = None) -> Ctx:
    dropped: dict[str, Any] = {}
    if frontend_of(cfg) == "bridge":
        view = bridge_view(cfg)
        dropped = {k: v for k, v in cfg.values.items() if k not in view.values}
        cfg = view
    model = model_view(cfg)
    explicit = cfg.section("model")
    sim = simulate({k: v for k, v in model.items() if k in explicit or k not in ("cuda_graph_scope",)}, era)
    merged_env = dict(cfg.env)
    merged_env.update(env or {})
    return Ctx(cfg=cfg, era=era, model=model, sim=sim, intent=read_intent(cfg, era=era), frontend=frontend_of(cfg),
               env=merged_env, dropped=dropped)


def check(cfg: CanonicalConfig, era: Era | None = None, env: dict[str, str] | None = None,
          levels: tuple[str, ...] | None = None) -> list[Finding]:
    """Every finding of the catalog for ``cfg`` in ``era`` (default: installed megatron-core)."""
    era = era or resolve_era()
    ctx = context(cfg, era, env)
    findings: list[Finding] = []
    for rule in catalog_mod.load().rules:
        if era.name not in rule.eras or (levels is not None and rule.level not in levels):
            continue
        if rule.check is None:
            continue
        fn = catalog_mod.resolve_check(rule.check)
        for data in fn(ctx):
            data = _unseen_defaults(ctx, data)
            keys = list(data.get("keys") or rule.keys)
            fix = data["fix"] if "fix" in data else dict(rule.fix)
            loc = data.get("location") or next((str(cfg.location(k)) for k in keys if k in cfg.locations), None)
            findings.append(Finding(
                rule=rule.id, severity=data.get("severity") or rule.severity, keys=keys,
                message=_format(rule.message, data), fix=dict(fix), source=rule.citation_for(era.name),
                level=rule.level, why=rule.why, pain_point=rule.pain_point, location=loc, docs=rule.docs,
            ))
    findings.sort(key=lambda f: SEVERITY_ORDER.get(f.severity, 3))
    return findings


def _unseen_defaults(ctx: Ctx, data: dict[str, Any]) -> dict[str, Any]:
    """A finding that rests on defaults (``data["assumed"]``) of keys a partial input does not show
    (overrides on a recipe, a run_script.py line, checkpoint-loaded model fields: ``Ctx.partial``)
    is a warning, not an error: the recipe or checkpoint may set them."""
    unseen = [k for k in data.get("assumed") or () if ctx.unknown(k)]
    if not unseen or data.get("severity") not in (None, "error"):
        return data
    return {**data, "severity": "warning"}


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)
