"""The era API answers capability questions; rules never compare versions themselves."""

import re
from pathlib import Path

import pytest

from skill_tools.config.era import CAPABILITIES, era_for, release_tag

RULES = Path(__file__).resolve().parents[2] / "skill_tools"


@pytest.mark.parametrize("version,capability,expected", [
    ("0.16.1", "cuda_graph_modules", False), ("0.18.0", "cuda_graph_modules", True),
    ("0.17.0", "full_iteration_inference_scope", True), ("0.16.0", "full_iteration_inference_scope", False),
    ("0.17.1", "cuda_graph_scope_only", True), ("0.18.0", "cuda_graph_scope_only", False),
    ("0.18.2", "bridge_rejects_local_scoped", False), ("0.19.2", "bridge_rejects_local_scoped", True),
    ("0.19.2", "te_norm_casts_fp32_residual", False), ("0.20.0", "te_norm_casts_fp32_residual", True),
])
def test_has(version, capability, expected):
    assert era_for(version).has(capability) is expected


def test_since_until_and_unknown_capability():
    era = era_for("0.18.2")
    assert era.since("0.18") and not era.since("0.19") and era.until("0.18") and not era.until("0.17")
    with pytest.raises(KeyError, match="unknown era capability"):
        era.has("no_such_thing")
    assert all(isinstance(s, str) for s, _ in CAPABILITIES.values())


def test_te_since():
    assert era_for("0.19.2", "2.12.0").te_since("2.12") and not era_for("0.19.2", "2.10").te_since("2.12")
    assert not era_for("0.19.2").te_since("2.12") or era_for("0.19.2").te_version is not None


def test_release_tag():
    tags = ("core_v0.16.0", "core_v0.16.1", "core_v0.19.0")
    assert release_tag("0.16.5", tags) == "core_v0.16.1" and release_tag("0.21.0", tags) == "core_v0.19.0"
    assert release_tag("0.15.0", tags) == "core_v0.16.0"


def test_no_inline_version_compares_in_rules_or_config():
    pattern = re.compile(r"version_tuple\s*[<>=]|\(\s*0,\s*1\d,\s*\d\s*\)|parse_version\(")
    offenders = [f"{p.relative_to(RULES)}:{n}" for folder in ("rules", "config") for p in (RULES / folder).glob("*.py")
                 if p.name != "era.py" for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if pattern.search(line)]
    assert not offenders, offenders
