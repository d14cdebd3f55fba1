"""Catalog vs the real TransformerConfig on generated configs: zero disagreement per era.
CI runs a seeded sample; benchmarks/bench_differential.py runs the full count."""

import os

import pytest

from skill_tools.config.era import era_for, installed_version

pytest.importorskip("megatron.core")
COUNT = int(os.environ.get("SKILL_TOOLS_DIFFERENTIAL_COUNT", "400"))


@pytest.mark.legacy
def test_zero_disagreement_seeded():
    from skill_tools.rules.differential import run

    res = run(era_for(installed_version("megatron-core")), COUNT, seed=1234)
    assert res.count == COUNT and res.oracle_errors > COUNT // 4
    assert not res.disagreements, res.disagreements[:3]
    assert not res.unmatched_oracle_errors, res.unmatched_oracle_errors


@pytest.mark.legacy
def test_oracle_reports_keyerror_as_usable_rule():
    from skill_tools.rules import oracle

    v = oracle.run({"cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["attention"]})
    assert v["ok"] is False and v["error_type"] == "KeyError" and v["rule"] == "scope-unknown"


@pytest.mark.legacy
def test_zero_disagreement_hypothesis():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from skill_tools.rules.differential import compare, generate
    import random

    era = era_for(installed_version("megatron-core"))

    @settings(max_examples=max(50, COUNT // 4), derandomize=True, deadline=None, database=None)
    @given(st.integers(min_value=0, max_value=2**32 - 1))
    def check(seed):
        model = generate(random.Random(seed), era)
        agree, ids, verdict = compare(model, era)
        assert agree, (model, sorted(ids), verdict.get("error"))

    check()
