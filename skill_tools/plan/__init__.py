"""The plan: the user's own model, fitted to the GPUs at hand, and the variants to measure on it.

``build(path_or_recipe, ...)`` reads any supported config (or a Bridge recipe name), takes its
shape and layout (:mod:`skill_tools.config.shape`), fits them (:mod:`.fit`), picks candidates
(:mod:`.candidates`) and returns a :class:`~skill_tools.plan.record.Plan`. No torch is imported.
"""

from __future__ import annotations

from pathlib import Path

from skill_tools.config.era import Era, resolve_era
from skill_tools.config.model import CanonicalConfig, Location
from skill_tools.config.shape import launcher_world, read_layout, read_shape
from skill_tools.errors import InputError
from skill_tools.plan import recipes
from skill_tools.plan.candidates import candidates
from skill_tools.plan.fit import fit, projection
from skill_tools.plan.record import GPUS, Plan, text

__all__ = ["build", "read_input", "Plan", "text"]


def read_input(spec: str | Path) -> tuple[CanonicalConfig, str | None, str | None]:
    """(config, its text, recipe name): a config file, or a Bridge recipe name from the table."""
    from skill_tools.config.readers import read_path

    path = Path(spec)
    if not path.exists() and recipes.lookup(str(spec)) is not None:
        name = recipes.normalise(str(spec))
        cfg = CanonicalConfig(source=f"recipe {name}", fmt="bridge_recipe")
        cfg.set("meta.model_recipe_name", name, Location(f"recipe {name}"))
        return cfg, None, name
    if not path.exists() and "/" not in str(spec) and "." not in str(spec):
        close = [n for n in recipes.names() if n.split("_")[0] == str(spec).split("_")[0]][:8]
        raise InputError(str(spec), "no such file, and not a Bridge recipe name in the table",
                         hint="recipes: " + ", ".join(close or recipes.names()[:12]))
    cfg = read_path(path)
    body = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    return cfg, body, recipes.recipe_named_in(cfg, body)


def build(spec: str | Path, *, gpus: int = 1, gpu_name: str = "h200", capacity_gb: float | None = None,
          max_layers: int = 4, engine: str = "megatron-lm", era: Era | None = None) -> Plan:
    """The plan for ``spec`` on ``gpus`` GPUs. InputError (exit 2) when the config has no model
    shape at all; refusals (an unbuildable architecture, a shape that cannot fit) are in the plan."""
    if gpus < 1 or max_layers < 1:
        raise InputError("--nproc/--layers", "must be at least 1")
    cfg, body, recipe = read_input(spec)
    capacity = capacity_gb if capacity_gb is not None else GPUS.get(gpu_name.lower())
    if capacity is None:
        raise InputError("--gpu", f"unknown GPU {gpu_name!r}", hint="one of " + ", ".join(GPUS)
                         + ", or give --gpu-memory-gb")
    if recipe:
        recipes.fill(cfg, recipe)
    try:
        shape = read_shape(cfg)
    except ValueError as exc:
        raise InputError(cfg.source, f"no model shape to measure: {exc}",
                         hint="pass the config the job runs with (its model section or launch flags), or a recipe "
                              "name from the table (e.g. qwen3_30b_a3b)") from None
    world = launcher_world(body, cfg.source) if body else None
    if world is None and isinstance(cfg.get("meta.num_gpus"), int):
        world = (cfg.get("meta.num_gpus"), f"-ng {cfg.get('meta.num_gpus')} ({cfg.location('meta.num_gpus')})")
    layout = read_layout(cfg, nproc=world)
    dist_opt = bool(cfg.get("ddp.use_distributed_optimizer"))
    fitted = fit(shape, layout, gpus=gpus, capacity_gb=capacity, max_layers=max_layers)
    era = era or resolve_era(None)
    cands, notes = candidates(cfg, shape, era)
    if shape.precision == "fp8":
        notes.append(f"fp8 ({shape.fp8_recipe}) is kept: the engines render it; on GPUs without fp8 support the "
                     "run fails and is reported as a failed variant")
    if shape.recompute_granularity == "full":
        notes.append("full recompute is kept as the config sets it: per-layer graphs cannot capture recomputed layers")
    if cfg.unparsed:
        notes.extend(f"not read: {u}" for u in cfg.unparsed[:10])
    proj = None if fitted.estimate is None or shape.hybrid_layer_pattern else projection(
        shape, fitted, layout, capacity, dist_opt)
    return Plan(source=cfg.source, fmt=cfg.fmt, engine=engine, gpus=gpus, gpu_name=gpu_name, capacity_gb=capacity,
                recipe=recipe, shape=shape, layout=layout, run_shape=fitted.shape, run_layout=fitted.layout,
                changes=list(fitted.changes), refusals=list(fitted.refusals), candidates=cands,
                memory=fitted.estimate.to_dict() if fitted.estimate else None, projection=proj, notes=notes)
