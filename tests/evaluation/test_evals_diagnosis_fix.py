"""A diagnosis task's fix is laid over the config the question states, the failing run's graph
modules included ("TE CUDA graphs on attn, moe_router, moe_preprocess"), and must clear the known
cause's rule. A fix the reader did not take (the answer changes none of the rule's keys) is not
judged; one it took and that leaves the rule firing fails the answer."""

from __future__ import annotations

from pathlib import Path

from skill_tools.evaluation.prose_patterns import changed_to_new
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.setup import task_setup
from skill_tools.evaluation.tasks import AnswerRecord, load_tasks

REPO = Path(__file__).resolve().parents[2]
TASKS = load_tasks(REPO / "evals" / "evals.json")
TASK = "moe-recompute-router-conflict"


def _fix_check(answer: str) -> tuple[dict, dict]:
    rec = AnswerRecord(id=TASK, condition="with_skill", answer=answer, line=1, agent="t")
    a = score_all(TASKS, [rec])["answers"][0]
    (check,) = [c for b in a["behaviors"] for c in b["checks"] if c["name"].startswith("fix clears")]
    return check, a


def test_the_failing_runs_modules_are_read_from_the_question():
    setup = task_setup(TASKS.tasks[TASK].data)
    assert setup.graph_impl == "transformer_engine"
    assert setup.graph_modules == ["attn", "moe_router", "moe_preprocess"]


def test_a_wish_is_not_the_failing_run():
    data = {"question": "I use cpu_offloading=True and also want TE CUDA graphs on attn. OK?",
            "rubric": {"outcome": {"kind": "diagnosis", "cause": "x", "terms": ["x"]}}}
    assert task_setup(data).graph_modules == []


def test_a_companion_that_brings_the_cause_back_fails():
    # moe_layer_recompute turns back into recompute_modules += ["moe"] in TransformerConfig
    answer = ("Recompute only what lies outside the router graph:\n\n```yaml\nmodel:\n  recompute_modules: "
              "[moe_act, layernorm]\n  moe_layer_recompute: true\n```\n")
    check, a = _fix_check(answer)
    assert check["score"] == 0.0 and check["fatal"], check
    assert not a["passed"]


def test_a_fix_that_clears_the_cause_passes_the_check():
    check, _ = _fix_check("Recompute outside the graphed region:\n\n```yaml\nmodel:\n  recompute_modules: "
                          "[moe_act, layernorm]\n```\n")
    assert check["score"] == 1.0, check


def test_a_fix_the_reader_did_not_take_is_not_judged():
    # the only setting read restates the stated implementation: the fix itself is in test code
    answer = ("Keep `cuda_graph_impl=\"transformer_engine\"` and parametrise a test over both fixes "
              "(recompute outside the graphed region, or graph attn only).\n")
    check, _ = _fix_check(answer)
    assert check["score"] is None and "not read" in check["explanation"], check


def test_change_old_to_new_reads_the_new_value():
    text = 'fix it by changing `recompute_modules=["moe", "layernorm"]` to `["layernorm", "moe_act"]` now'
    assert '`recompute_modules=["layernorm", "moe_act"]`' in changed_to_new(text)
    assert changed_to_new("rename `cuda_graph_scope=x` to `cuda_graph_modules=x`").endswith("`cuda_graph_modules=x`")
    check, _ = _fix_check(text + ".\n")
    assert check["score"] == 1.0, check


def _check(task: str, answer: str, name: str) -> dict:
    rec = AnswerRecord(id=task, condition="with_skill", answer=answer, line=1, agent="t")
    a = score_all(TASKS, [rec])["answers"][0]
    (check,) = [c for b in a["behaviors"] for c in b["checks"] if c["name"] == name]
    return check


def test_a_companion_required_only_with_a_setting_the_answer_makes():
    name = "FSDP all-gather not issued at param-sync start"
    task = "diagnose-stream-capture-isolation"
    base = "Set `comm_overlap.overlap_param_gather_with_optimizer_step=False`"
    missing = _check(task, base + " and for Megatron-FSDP `ddp.megatron_fsdp_cuda_graph_mode=True`.\n", name)
    assert missing["score"] == 0.0 and missing["fatal"], missing
    both = _check(task, base + ", `ddp.megatron_fsdp_cuda_graph_mode=True` and "
                  "`ddp.fsdp_all_gather_in_start_param_sync=False`.\n", name)
    assert both["score"] == 1.0, both
    assert _check(task, base + ".\n", name)["score"] is None
