"""Tests generated from the catalog's examples (ruff's model): every rule fires on each of its
positive examples and stays quiet on each negative one. Adding a rule = its catalog entry (with its
examples) + its check function; this file needs no edit."""

import warnings

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.rules.catalog import load
from skill_tools.rules.engine import check

CASES = [pytest.param(rule.id, kind, ex, id=f"{rule.id}-{kind}-{n}")
         for rule in load().rules for kind in ("positive", "negative")
         for n, ex in enumerate(rule.examples.get(kind) or [])]


def test_every_rule_has_both_kinds_of_example():
    missing = [r.id for r in load().rules if not (r.examples.get("positive") and r.examples.get("negative"))]
    assert not missing, missing


@pytest.mark.parametrize("rule_id,kind,example", CASES)
def test_example(rule_id, kind, example):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = read_text(example["config"], fmt=example.get("format"))
        fired = {f.rule for f in check(cfg, era_for(str(example["mcore"])), env=example.get("env"))}
    if kind == "positive":
        assert rule_id in fired, f"{rule_id} did not fire on its positive example; fired: {sorted(fired)}"
    else:
        assert rule_id not in fired, f"{rule_id} fired on its negative example"
