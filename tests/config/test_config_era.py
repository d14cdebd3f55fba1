"""Era-specific reading: the same intent in both eras' spellings."""

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.rules.engine import check


@pytest.mark.legacy
def test_wrong_era_keys_are_findings_with_migration():
    cfg = read_text("model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n")
    legacy = {f.rule: f for f in check(cfg, era_for("0.16.1"))}
    assert "era-key-unknown" in legacy and legacy["era-key-unknown"].fix["model.cuda_graph_scope"] == ["attn"]
    old = read_text("model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [full_iteration]\n")
    current = {f.rule: f for f in check(old, era_for("0.19.2"))}
    assert current["deprecated-cuda-graph-scope"].fix["model.cuda_graph_impl"] == "full_iteration"


@pytest.mark.legacy
def test_full_iteration_impl_is_unknown_in_legacy_with_exact_fix():
    cfg = read_text("model:\n  cuda_graph_impl: full_iteration\n")
    f = {f.rule: f for f in check(cfg, era_for("0.16.1"))}["impl-unknown"]
    assert f.fix == {"model.cuda_graph_impl": "local", "model.cuda_graph_scope": ["full_iteration"]}
