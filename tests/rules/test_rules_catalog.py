"""The catalog as data: complete, cited, and its defaults match the installed TransformerConfig."""

import dataclasses

import pytest

from skill_tools.rules.catalog import LEVELS, SEVERITIES, load, resolve_check


def test_every_rule_is_complete_and_cited():
    cat = load()
    ids = [r.id for r in cat.rules]
    assert len(ids) == len(set(ids)) and len(ids) >= 40
    for r in cat.rules:
        assert r.severity in SEVERITIES and r.level in LEVELS and r.eras and r.message and r.why, r.id
        assert r.citations and all({"repo", "file", "tag"} <= set(c) for c in r.citations), r.id
        assert r.check and callable(resolve_check(r.check)), f"rule {r.id} names no check that exists"
        if r.level == "mcore":
            assert r.mcore_message, r.id


@pytest.mark.legacy
def test_defaults_match_installed_transformer_config():
    from megatron.core.transformer.transformer_config import TransformerConfig

    fields = {f.name: f for f in dataclasses.fields(TransformerConfig)}
    for key, value in load().defaults.items():
        f = fields[key]
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        assert default == value, (key, default, value)
