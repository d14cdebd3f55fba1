"""Load ``catalog.yaml`` once: rules as data, with their citations and MCore message patterns."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools.config.era import era_for

CATALOG_PATH = Path(__file__).with_name("catalog.yaml")
#: The generated rule reference (``skill-tools card sync`` writes it from this catalog).
RULES_DOC = "references/rules.md"
SEVERITIES = ("error", "warning", "info")
LEVELS = ("mcore", "megatron_lm", "bridge", "runtime", "advice")


@dataclass(frozen=True)
class Rule:
    id: str
    level: str
    severity: str
    eras: tuple[str, ...]
    keys: tuple[str, ...]
    message: str
    why: str
    citations: tuple[dict[str, str], ...]
    fix: dict[str, Any] = field(default_factory=dict)
    mcore_message: str | None = None
    #: A regex of Megatron Bridge's own exception text for this rule (the Bridge oracle matches it).
    bridge_message: str | None = None
    #: A regex of Megatron-LM's own text for this rule (arguments.py's asserts; the launch oracle matches it).
    mlm_message: str | None = None
    pain_point: str | None = None
    docs: str | None = None
    #: ``module.function`` of skill_tools/rules/ that decides when the rule fires (dispatched by name).
    check: str | None = None
    #: Configs the rule fires on (``positive``) and stays quiet on (``negative``); tests are generated from them.
    examples: dict[str, Any] = field(default_factory=dict)

    def citation_for(self, era_name: str) -> str:
        """The citation(s) that apply to an era, as ``repo file@tag``."""
        def era_of(tag: str) -> str | None:
            m = re.match(r"core_(v\d+\.\d+)", tag)
            return era_for(m.group(1)).name if m else None
        chosen = [c for c in self.citations if era_of(c["tag"]) in (None, era_name)] or list(self.citations)
        return "; ".join(f"{c['repo']} {c['file']}@{c['tag']}" for c in chosen)

    def matches_mcore(self, text: str) -> bool:
        return bool(self.mcore_message) and re.search(self.mcore_message, text) is not None

    def matches_mlm(self, text: str) -> bool:
        return bool(self.mlm_message) and re.search(self.mlm_message, text) is not None

    def matches_bridge(self, text: str) -> bool:
        return bool(self.bridge_message) and re.search(self.bridge_message, text) is not None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "level": self.level, "severity": self.severity, "eras": list(self.eras),
                "keys": list(self.keys), "message": self.message, "why": self.why, "fix": dict(self.fix),
                "citation": [dict(c) for c in self.citations], "pain_point": self.pain_point, "docs": self.docs}


@dataclass(frozen=True)
class Catalog:
    rules: tuple[Rule, ...]
    defaults: dict[str, Any]

    def by_id(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)

    def mcore_rules(self) -> list[Rule]:
        return [r for r in self.rules if r.level == "mcore"]

    def mlm_rules(self) -> list[Rule]:
        """Rules whose text Megatron-LM's arguments.py prints (the launch oracle can name them)."""
        return [r for r in self.rules if r.mlm_message]


def resolve_check(name: str):
    """The check function a rule names (``mcore_checks.scope_unknown``), imported on first use."""
    import importlib

    module, _, func = name.rpartition(".")
    if not module or not func.isidentifier():
        raise ValueError(f"check {name!r} is not module.function")
    return getattr(importlib.import_module(f"skill_tools.rules.{module}"), func)


@functools.lru_cache(maxsize=1)
def load() -> Catalog:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(CATALOG_PATH.read_text(encoding="utf-8"), Loader=loader)
    rules = []
    for raw in data["rules"]:
        cites = raw.get("citation") or []
        rules.append(Rule(
            id=raw["id"], level=raw["level"], severity=raw["severity"], eras=tuple(raw["eras"]),
            keys=tuple(raw.get("keys") or ()), message=raw["message"], why=raw.get("why", ""),
            citations=tuple(cites if isinstance(cites, list) else [cites]), fix=dict(raw.get("fix") or {}),
            mcore_message=raw.get("mcore_message"), bridge_message=raw.get("bridge_message"), pain_point=raw.get("pain_point"),
            mlm_message=raw.get("mlm_message"),
            docs=raw.get("docs") or f"{RULES_DOC}#{raw['id']}", check=raw.get("check"),
            examples=dict(raw.get("examples") or {}),
        ))
    return Catalog(rules=tuple(rules), defaults=dict(data.get("defaults") or {}))
