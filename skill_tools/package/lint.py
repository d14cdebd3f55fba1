"""``skill-tools lint``: every check of the skill package, one report.

The checks live beside this module: :mod:`.package_lint` (SKILL.md frontmatter, card.yaml,
evals.json, links) and :mod:`.catalog_lint` (what the NVIDIA/skills catalog requires of a skill).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill_tools.errors import InputError
from skill_tools.package.catalog_lint import check_catalog
from skill_tools.package.package_lint import (LintFinding, check_card, check_evals, check_links,
                                              check_skill_md)


@dataclass
class LintReport:
    root: str
    findings: list[LintFinding]

    @property
    def errors(self) -> list[LintFinding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "root": self.root, "findings": [f.to_dict() for f in self.findings]}


def lint(root: Path, *, as_installed: bool = False) -> LintReport:
    """Run every check. Raises :class:`InputError` when ``root`` is not a readable skill folder.

    ``as_installed``: ``root`` is where an agent loads the skill from, so its name must be the
    skill's name even when its parent folder is not called ``skills``.
    """
    if not root.is_dir():
        raise InputError(str(root), "is not a directory", hint="pass the skill folder that holds SKILL.md")
    data, findings = check_skill_md(root)
    name = data.get("name") if isinstance(data, dict) else None
    findings += check_card(root)
    findings += check_evals(root, name if isinstance(name, str) else None)
    findings += check_links(root)
    findings += check_catalog(root, data if isinstance(data, dict) else None, as_installed=as_installed)
    return LintReport(str(root), findings)
