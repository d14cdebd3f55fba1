"""Options an answer offers are held to the task's own value constraints, and an if-clause's
negation states a case rather than rejecting what follows it. The answers are written for these
tests, in styles of their own."""

from __future__ import annotations

from pathlib import Path

from skill_tools.config.model import CanonicalConfig
from skill_tools.evaluation.alternatives import check_option_values
from skill_tools.evaluation.polarity import ALTERNATIVE, REJECTED, LinePolarity
from skill_tools.evaluation.score import Scorer
from skill_tools.evaluation.tasks import AnswerRecord, load_tasks

F = "```"
ROOT = Path(__file__).resolve().parents[2]


def _score(task_id: str, text: str):
    return Scorer(load_tasks(ROOT / "evals" / "evals.json")).score(AnswerRecord(task_id, "with_skill", "t", text, 1))


def _rubric(spec: dict) -> dict:
    return {"behaviors": [{"behavior": 0, "checks": [spec]}]}


def _role(line: str, needle: str) -> str:
    at = line.index(needle)
    return LinePolarity(line).at(at, at + len(needle)).role


def test_a_negation_inside_a_leading_if_clause_does_not_reject_the_setting_after_it():
    line = "- if the graphs still don't capture after the upgrade, switch `gen.cuda_graph_impl` to `transformer_engine`"
    assert _role(line, "gen.cuda_graph_impl") == ALTERNATIVE
    line = "When the run is not faster, try `cuda_graph_modules=[attn, mlp]`."
    assert _role(line, "cuda_graph_modules") == ALTERNATIVE


def test_a_negation_after_the_if_clause_still_rejects():
    line = "If you run dropless MoE, don't use `cuda_graph_modules=[moe]`."
    assert _role(line, "cuda_graph_modules") == REJECTED


def test_an_option_that_breaks_a_value_constraint_is_fatal():
    option = CanonicalConfig(source="t", fmt="answer-option")
    option.set("rng.te_rng_tracker", False)
    spec = {"type": "config", "keys": ["rng.te_rng_tracker"], "name": "TE RNG tracker on", "equals": True}
    check = check_option_values([option], _rubric(spec))
    assert check is not None and check.fatal and "rng.te_rng_tracker=False" in check.explanation
    assert check_option_values([option], _rubric(spec), {0: {"rng.te_rng_tracker"}}) is None  # the if-clause's own case
    assert check_option_values([option], _rubric({**spec, "when": {"graphs": "on"}})) is None
    option.set("rng.te_rng_tracker", True)
    assert check_option_values([option], _rubric(spec)) is None


def test_a_fallback_to_te_graphs_for_colocated_generation_fails_the_answer():
    head = ("Your generation never captured: colocated generation only restores CudaGraphManagers that existed "
            "at model init, and the policy builds none. Upgrade NeMo-RL (it now builds them in "
            "prepare_for_generation) and look for `> built cuda graph(s) in` in the generation worker log. "
            "Set `--rl-persist-cuda-graphs` only once graphs are really built; with KV-cache offload keep "
            "addresses stable and export `NCCL_GRAPH_REGISTER=0`.\n\n")
    tail = ("If block graphs still don't capture after the upgrade, switch "
            "`mcore_generation_config.cuda_graph_impl` to `transformer_engine`.\n")
    bad = _score("rl-colocated-eager-decode", head + tail)
    assert not bad.passed
    assert any(c.type == "options" and c.fatal for b in bad.behaviors for c in b.checks)
    good = _score("rl-colocated-eager-decode", head)
    assert not any(c.type == "options" for b in good.behaviors for c in b.checks)
