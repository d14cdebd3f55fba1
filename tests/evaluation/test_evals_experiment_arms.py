"""An experiment plan that names its runs by letter offers each run as its own config: a run that
megatron-core refuses fails the answer, and a lone "A:" (a Q/A answer) is no run. The answers are
written for these tests, in styles of their own."""

from __future__ import annotations

from one_answer import score_one

from skill_tools.evaluation.experiment_arms import arm_lines
from skill_tools.evaluation.extract import extract_config

PLAN = """Bisect it, one short run per node, same seed and data order.

[0] Baseline pair
    |-- A: cuda_graph_impl=none                  (the stable run)
    `-- B: cuda_graph_impl=transformer_engine, scope [attn], EP overlap on   (the failing run)

[1] Attention graph with the EP overlap off
    C: scope [attn], overlap_moe_expert_parallel_comm=False

[2] Move the graph onto the MoE side
    D: scope [{arm_d}], EP overlap on

Whatever the leaf, upgrade TE and megatron-core together and keep graphs off until B matches A.
"""


def test_each_lettered_run_is_an_option_of_its_own():
    text = PLAN.format(arm_d="moe_router, moe_preprocess")
    assert sorted(set(arm_lines(text).values())) == ["A", "B", "C", "D"]
    ex = extract_config(text, era="current")
    assert not ex.config.has("model.cuda_graph_modules")  # no run is merged into one config
    modules = [a.get("model.cuda_graph_modules") for a in ex.alternatives if a.has("model.cuda_graph_modules")]
    assert ["moe_router", "moe_preprocess"] in modules and ["attn"] in modules


def test_a_run_megatron_refuses_fails_the_plan():
    bad = score_one("diagnose-nan-after-graphs", PLAN.format(arm_d="moe_preprocess"))
    assert any("moe_preprocess" in f for f in bad["fatal"]), bad["fatal"]
    good = score_one("diagnose-nan-after-graphs", PLAN.format(arm_d="moe_router, moe_preprocess"))
    assert not any("moe_preprocess" in f for f in good["fatal"]), good["fatal"]


def test_a_lone_answer_label_is_no_run():
    text = "Q: How do I turn graphs on?\nA: Set `cuda_graph_impl=transformer_engine` and the TE RNG tracker.\n"
    assert arm_lines(text) == {}
    assert extract_config(text, era="current").config.get("model.cuda_graph_impl") == "transformer_engine"
