"""Catalog-versus-Bridge differential: generated Bridge-shaped configs, the catalog's verdict (its
megatron-core rules and its Bridge rules that Bridge's own code checks) next to Megatron Bridge's
``ConfigContainer.validate()`` and ``GPTModelProvider`` graph asserts (:mod:`bridge_oracle`).

Used by ``tests/rules/test_bridge_oracle.py`` (seeded, small; skipped where Bridge cannot be imported)
and ``benchmarks/bench_bridge_differential.py`` (full count, dated result).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.rules import bridge_oracle, differential
from skill_tools.rules.engine import check


def generate(rng: random.Random, era: Era) -> dict[str, Any]:
    """A nested Bridge config: the megatron-core differential's model section plus the settings
    Bridge's own graph checks read (RNG tracker in either spelling, the loss NaN check, the
    legacy full-iteration spelling that Bridge converts)."""
    model = differential.generate(rng, era)
    r = rng.random
    if r() < 0.15:  # the spelling Bridge's perf scripts and 0.16-0.17 recipes use for full iteration
        model["cuda_graph_impl"] = "local"
        model.pop("cuda_graph_modules", None)
        model["cuda_graph_scope"] = ["full_iteration"]
    # Always Bridge-shaped (a section besides model), as a ConfigContainer dump or a recipe is.
    cfg: dict[str, Any] = {"model": model, "train": {"train_iters": 10}}
    tracker = rng.choice(["model", "rng", "both", "none", "none"])
    if tracker in ("model", "both"):
        model["use_te_rng_tracker"] = True
    if tracker in ("rng", "both"):
        cfg["rng"] = {"te_rng_tracker": True}
    if r() < 0.6:
        cfg["rerun_state_machine"] = {"check_for_nan_in_loss": rng.choice([True, False])}
    return cfg


@dataclass
class Result:
    era: str
    mcore_version: str
    bridge_version: str | None
    count: int = 0
    bridge_errors: int = 0
    by_stage: dict[str, int] = field(default_factory=dict)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    unmatched_bridge_errors: dict[str, int] = field(default_factory=dict)
    rules_hit: dict[str, int] = field(default_factory=dict)
    #: Bridge stopped for a reason that is not about CUDA graphs (e.g. a Transformer Engine setting).
    could_not_judge: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"era": self.era, "mcore_version": self.mcore_version, "bridge_version": self.bridge_version,
                "count": self.count, "bridge_errors": self.bridge_errors, "by_stage": dict(sorted(self.by_stage.items())),
                "disagreements": len(self.disagreements), "disagreement_examples": self.disagreements[:10],
                "unmatched_bridge_errors": self.unmatched_bridge_errors,
                "rules_hit": dict(sorted(self.rules_hit.items())), "could_not_judge": self.could_not_judge}


def catalog_errors(cfg: CanonicalConfig, era: Era) -> set[str]:
    """The catalog's error rules for a config, limited to those Bridge's code path can confirm."""
    checkable = bridge_oracle.checkable_rules()
    return {f.rule for f in check(cfg, era, levels=("mcore", "bridge")) if f.severity == "error" and f.rule in checkable}


def compare(nested: dict[str, Any], era: Era) -> tuple[bool, set[str], dict[str, Any]]:
    """(agree, catalog error rule ids, Bridge's verdict) for one config."""
    cfg = CanonicalConfig.from_nested(nested, fmt="yaml")
    ids = catalog_errors(cfg, era)
    verdict = bridge_oracle.run(cfg)
    return bridge_oracle.agrees(ids, verdict), ids, verdict


def run(era: Era, count: int, seed: int = 0) -> Result:
    from skill_tools.config.era import installed_version
    from skill_tools.rules import oracle

    rng = random.Random(seed)
    res = Result(era=era.name, mcore_version=era.mcore_version, bridge_version=installed_version("megatron-bridge"))
    for _ in range(count):
        nested = generate(rng, era)
        agree, ids, verdict = compare(nested, era)
        if not verdict.get("ran"):
            raise RuntimeError(verdict.get("reason"))
        res.count += 1
        res.bridge_errors += not verdict["ok"]
        if not verdict["ok"]:
            res.by_stage[verdict["stage"]] = res.by_stage.get(verdict["stage"], 0) + 1
        if verdict["rule"]:
            res.rules_hit[verdict["rule"]] = res.rules_hit.get(verdict["rule"], 0) + 1
        elif not verdict["ok"] and oracle.judged(verdict)[0]:
            msg = (verdict["error"] or "")[:120]
            res.unmatched_bridge_errors[msg] = res.unmatched_bridge_errors.get(msg, 0) + 1
        if not agree and not oracle.judged(verdict)[0]:
            res.could_not_judge += 1
        elif not agree:
            res.disagreements.append({"config": nested, "catalog": sorted(ids), "bridge": verdict.get("error"),
                                      "bridge_stage": verdict.get("stage")})
    return res
