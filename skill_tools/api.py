"""Python API mirroring the CLI, for agents calling helpers in-process.

``validate(config)`` -> :class:`Report`; ``apply(config, impl, scope)`` -> :class:`~skill_tools.overrides.Plan`;
``recommend(config)`` -> :class:`~skill_tools.recommend.Recommendation`. ``config`` may be a path,
config text, a mapping, a live Bridge/MCore config object or a :class:`CanonicalConfig`.
torch/megatron-core are imported only when ``oracle=True``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools.config.era import Era, resolve_era
from skill_tools.config.model import CanonicalConfig
from skill_tools.config.readers import read_object, read_path, read_text
from skill_tools.rules.engine import Finding, check, has_errors
from skill_tools.rules.input_check import check_keys


@dataclass
class Report:
    findings: list[Finding]
    era: Era
    source: str
    oracle: dict[str, Any] = field(default_factory=lambda: {"ran": False, "reason": "not requested (use --oracle)"})

    @property
    def ok(self) -> bool:
        return not has_errors(self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "mcore_version": self.era.mcore_version, "era": self.era.name, "source": self.source,
                **({"era_note": self.era.note} if self.era.note else {}),
                "findings": [f.to_dict() for f in self.findings], "oracle": dict(self.oracle)}


def load(config: Any, fmt: str | None = None) -> CanonicalConfig:
    """Any accepted config shape -> CanonicalConfig (bad input raises InputError)."""
    if isinstance(config, CanonicalConfig):
        cfg = config
    elif isinstance(config, Path) or config == "-" or (isinstance(config, str) and _names_a_file(config)):
        cfg = read_path(config, fmt=fmt)
    elif isinstance(config, str):
        cfg = read_text(config, fmt=fmt)
    else:
        cfg = read_object(config)
    check_keys(cfg)
    return cfg


def _names_a_file(text: str) -> bool:
    """Whether one-line ``text`` names an existing file (text too long to be a path, or a path
    the system refuses, is config text)."""
    if "\n" in text or "\x00" in text or len(text) > 4096:
        return False
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def era_of(mcore_version: str | None = None, te_version: str | None = None) -> Era:
    return resolve_era(mcore_version, te_version)


def validate(config: Any, mcore_version: str | None = None, env: dict[str, str] | None = None, *,
             oracle: bool = False, fmt: str | None = None, te_version: str | None = None) -> Report:
    cfg = load(config, fmt)
    era = era_of(mcore_version, te_version)
    report = Report(findings=check(cfg, era, env=env), era=era, source=cfg.source)
    if oracle:
        report.oracle = oracle_verdict(cfg, era, report.findings)
        report.oracle["bridge"] = bridge_verdict(cfg, era, report.findings)
    return report


def bridge_verdict(cfg: CanonicalConfig, era: Era, findings: list[Finding]) -> dict[str, Any]:
    """Megatron Bridge's own ``ConfigContainer.validate()`` and provider graph asserts on a
    Bridge-shaped input, beside the catalog's rules that Bridge's code path checks."""
    from skill_tools.config.era import era_for, installed_version
    from skill_tools.rules import bridge_oracle
    from skill_tools.rules.engine import frontend_of

    if frontend_of(cfg) != "bridge":
        return {"ran": False, "reason": "not a Bridge-shaped input (a bare model section or Megatron-LM flags)"}
    installed = installed_version("megatron-core")
    if installed is not None and era_for(installed).name != era.name:
        return {"ran": False, "reason": f"installed megatron-core {installed} is not in the requested era ({era.label})"}
    verdict = bridge_oracle.run(cfg)
    if verdict.get("ran"):
        checkable = bridge_oracle.checkable_rules()
        errors = {f.rule for f in findings if f.severity == "error" and f.level in ("mcore", "bridge") and f.rule in checkable}
        verdict["catalog_rules"] = sorted(errors)
        from skill_tools.rules import oracle

        ok, why = oracle.judged(verdict)
        verdict["agrees"] = bridge_oracle.agrees(errors, verdict) if ok else None
        if not ok:
            verdict["could_not_judge"] = why
    return verdict


def oracle_verdict(cfg: CanonicalConfig, era: Era, findings: list[Finding]) -> dict[str, Any]:
    """The real TransformerConfig's verdict beside the catalog's (only in the installed era)."""
    from skill_tools.config.era import era_for, installed_version
    from skill_tools.rules import oracle

    installed = installed_version("megatron-core")
    if installed is None:
        return {"ran": False, "reason": "megatron-core is not installed"}
    if era_for(installed).name != era.name:
        return {"ran": False, "reason": f"installed megatron-core {installed} is not in the requested era ({era.label})"}
    from skill_tools.rules import oracle_launch
    from skill_tools.rules.engine import frontend_of

    # a launch goes through Megatron-LM's own parser, checks and args-to-config step
    launch = frontend_of(cfg) == "megatron_lm"
    verdict = oracle_launch.run(cfg) if launch else oracle.run(cfg)
    if verdict.get("ran"):
        mlm = oracle.mlm_judged_rules() if launch else set()  # arguments.py's asserts: the launch oracle runs them
        mcore_errors = {f.rule for f in findings if (f.level == "mcore" or f.rule in mlm) and f.severity == "error"}
        verdict["catalog_rules"] = sorted(mcore_errors)
        ok, why = oracle.judged(verdict)
        if ok and not verdict["ok"] and _partial(cfg, era):
            ok, why = False, ("the input builds on a recipe or checkpoint it does not show (the oracle builds "
                              "TransformerConfig from what the input sets)")
        verdict["agrees"] = oracle.agrees(mcore_errors, verdict) if ok else None
        if not ok:
            verdict["could_not_judge"] = why
    return verdict


def _partial(cfg: CanonicalConfig, era: Era) -> bool:
    from skill_tools.rules.engine import context

    return context(cfg, era).partial


def apply(config: Any, impl: str | None = None, scope: str | list[str] | None = None, *, warmup: int | None = None,
          inference_scope: str | None = None, mcore_version: str | None = None, env: dict[str, str] | None = None,
          fmt: str | None = None, te_version: str | None = None):
    """Plan era-correct overrides; ``result.ok`` is False (with findings) for an illegal result."""
    from skill_tools.overrides import plan

    cfg = load(config, fmt)
    return plan(cfg, impl, scope, era_of(mcore_version, te_version), warmup=warmup, inference_scope=inference_scope, env=env)


def recommend(config: Any, mcore_version: str | None = None, env: dict[str, str] | None = None, fmt: str | None = None,
              te_version: str | None = None):
    from skill_tools.recommend import recommend as _recommend

    return _recommend(load(config, fmt), era_of(mcore_version, te_version), env=env)
