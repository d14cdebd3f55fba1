"""Every finding's docs link lands on real text: references/rules.md is generated from the catalog."""

from __future__ import annotations

import re

from skill_tools.rules.catalog import RULES_DOC, load
from skill_tools.rules.reference_doc import render


def test_rules_doc_is_in_sync_with_catalog(repo):
    assert (repo / RULES_DOC).read_text(encoding="utf-8") == render(load()), \
        "references/rules.md is stale: run `skill-tools card sync`"


def test_every_rule_has_a_resolving_docs_link(repo):
    headings = set(re.findall(r"^## (\S+)$", render(load()), re.M))
    for rule in load().rules:
        path, _, anchor = rule.docs.partition("#")
        assert (repo / path).is_file(), f"{rule.id}: docs file {path} does not exist"
        if path == RULES_DOC:
            assert anchor == rule.id and anchor in headings, rule.id


def test_section_carries_fix_source_and_eras():
    text = render(load())
    section = text.split("## te-rng-tracker-required", 1)[1].split("\n## ", 1)[0]
    assert "**Fix (overrides):**" in section and "**Source:**" in section and "**Eras:**" in section
