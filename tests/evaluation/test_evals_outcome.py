"""Outcomes a task declares (configuration on a workspace base, diagnosis, decision), the files an
agent changed read as its config, required companions, other skills' tasks scored generically, and
an answer that cannot be scored reported with score 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill_tools.evaluation import score as score_mod
from skill_tools.evaluation.score import score_all
from skill_tools.evaluation.tasks import AnswerRecord, load_answers, load_tasks

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "evals" / "evals.json"


def _score(tmp_path, rows, evals=EVALS):
    p = tmp_path / "a.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {a["agent"]: a for a in score_all(load_tasks(evals), load_answers(p))["answers"]}


MLM_GOOD = ("The NaN check syncs CPU and GPU, which cannot be captured, so it goes off.\n\n```bash\n"
            "    --cuda-graph-impl full_iteration\n    --cuda-graph-warmup-steps 3\n    --no-check-for-nan-in-loss-and-grad\n```")
#: The stock script runs --fp16 without --loss-scale: Megatron-LM's arguments.py turns the NaN check off
#: itself (l.1172-1180 @core_v0.19.0), so leaving the flag out runs; a static --loss-scale without it asserts.
MLM_DEFAULT_LEFT_ON = "Add to TRAINING_ARGS:\n\n```bash\n    --cuda-graph-impl full_iteration\n    --cuda-graph-warmup-steps 3\n```"
MLM_STATIC_SCALE = ("Add to TRAINING_ARGS:\n\n```bash\n    --loss-scale 4096\n    --cuda-graph-impl full_iteration\n"
                    "    --cuda-graph-warmup-steps 3\n```")
MLM_CHECK_ON = MLM_GOOD.replace("--no-check-for-nan-in-loss-and-grad", "--check-for-nan-in-loss-and-grad")


def test_configuration_outcome_judges_the_base_with_the_changes(tmp_path):
    rows = [("good", MLM_GOOD), ("fp16-default", MLM_DEFAULT_LEFT_ON), ("static-scale", MLM_STATIC_SCALE),
            ("check-on", MLM_CHECK_ON)]
    got = _score(tmp_path, [{"id": "workspace-mlm-full-iteration", "agent": a, "answer": t} for a, t in rows])
    good = got["good"]
    assert good["passed"] and good["outcome"]["base"] == "train_gpt3_175b_distributed.sh"
    assert good["config"]["values"]["model.tensor_model_parallel_size"] == 8  # the stock script's value
    assert good["extraction_confidence"]["confidence"] == "high"
    assert got["fp16-default"]["passed"], got["fp16-default"]["fatal"]  # the base's --fp16 turns the check off
    for bad in ("static-scale", "check-on"):
        assert not got[bad]["passed"], bad
        assert any("nan-check-full-iteration" in f or "NaN check off" in f for f in got[bad]["fatal"]), got[bad]["fatal"]


def test_files_the_agent_changed_are_its_config(tmp_path):
    base = (REPO / "evals/workspaces/workspace-bridge-yaml-te-graphs/llama32_1b_pretrain.yaml").read_text()
    edited = base.replace("  context_parallel_size: 1\n", "  context_parallel_size: 1\n  cuda_graph_impl: transformer_engine\n"
                          "  cuda_graph_modules: [attn]\n  cuda_graph_scope: null\n  use_te_rng_tracker: true\n").replace(
        "  seed: 1234\n", "  seed: 1234\n  te_rng_tracker: true\n")
    # the recipe the YAML overrides sets cuda_graph_scope="full" (task outcome.recipe): left in place, 0.19 refuses both
    keeps_recipe_scope = edited.replace("  cuda_graph_scope: null\n", "")
    no_tracker = base.replace("  context_parallel_size: 1\n", "  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n")
    changes = lambda text: {"files": {"llama32_1b_pretrain.yaml": text}, "deleted": []}  # noqa: E731
    got = _score(tmp_path, [
        {"id": "workspace-bridge-yaml-te-graphs", "agent": "edited", "answer": "Done: I edited the YAML.",
         "workspace_changes": changes(edited)},
        {"id": "workspace-bridge-yaml-te-graphs", "agent": "no-tracker", "answer": "Done.",
         "workspace_changes": changes(no_tracker)},
        {"id": "workspace-bridge-yaml-te-graphs", "agent": "keeps-recipe-scope", "answer": "Done.",
         "workspace_changes": changes(keeps_recipe_scope)}])
    assert got["edited"]["passed"], got["edited"]["fatal"]
    assert not got["keeps-recipe-scope"]["passed"]
    assert any("scope-and-modules-both" in f for f in got["keeps-recipe-scope"]["fatal"])
    assert "files the agent changed" in got["edited"]["extraction_confidence"]["why"]
    assert not got["no-tracker"]["passed"]
    assert "model.context_parallel_size" not in got["no-tracker"]["config"]["values"]  # the agent deleted it


def test_workspace_file_with_a_payload_is_not_read(tmp_path):
    got = _score(tmp_path, [{"id": "workspace-bridge-yaml-te-graphs", "agent": "evil", "answer": "ok",
                             "workspace_changes": {"files": {"x.py": "import os\nos.system('touch P')\n"}, "deleted": []}}])
    assert got["evil"]["unsafe"] and not got["evil"]["passed"] and not (tmp_path / "P").exists()


def test_diagnosis_outcome_names_the_cause_and_clears_its_rule(tmp_path):
    fixed = ("The NaN check is a host sync that cannot be captured. Set `rerun_state_machine.check_for_nan_in_loss=False` "
             "and `ddp.check_for_nan_in_grad=False`; keep local + [\"full_iteration\"] on 0.16.")
    half = "The NaN check is a host sync. Set `rerun_state_machine.check_for_nan_in_loss=False`."
    got = _score(tmp_path, [{"id": "diagnose-log-nan-assert", "agent": "fixed", "answer": fixed},
                            {"id": "diagnose-log-nan-assert", "agent": "half", "answer": half}])
    outcome = [b for b in got["fixed"]["behaviors"] if b["behavior"] == "outcome: diagnosis"][0]
    assert [c["score"] for c in outcome["checks"]] == [1.0, 1.0] and got["fixed"]["passed"]
    assert not got["half"]["passed"]  # the grad check is a required companion


def _decision_set(tmp_path):
    p = tmp_path / "evals.json"
    p.write_text(json.dumps([{"id": "d1", "expected_skill": "megatron-cuda-graphs", "should_trigger": True,
                              "question": "We use dynamic shapes every step with megatron-core 0.19. Should we turn on CUDA graphs?",
                              "ground_truth": "No: leave graphs off.", "expected_behavior": ["Leave CUDA graphs off."],
                              "sources": ["x"], "rubric": {"behaviors": [{"behavior": 0, "checks": [
                                  {"type": "concept", "name": "shapes", "any": ["dynamic"]}]}],
                                  "outcome": {"kind": "decision", "decision": "graphs_off"}}}]))
    return p


def test_decision_outcome_graphs_off(tmp_path):
    got = _score(tmp_path, [
        {"id": "d1", "agent": "off", "answer": "No. With dynamic shapes do not enable CUDA graphs; keep cuda_graph_impl unset."},
        {"id": "d1", "agent": "on", "answer": "Dynamic shapes are fine: set `model.cuda_graph_impl=transformer_engine`."},
        {"id": "d1", "agent": "prose", "answer": "Dynamic shapes: you can still enable CUDA graphs, it usually helps."}],
        evals=_decision_set(tmp_path))
    assert got["off"]["passed"] and not got["on"]["passed"] and not got["prose"]["passed"]


def test_other_skills_tasks_are_scored_generically(tmp_path):
    p = tmp_path / "jetson.json"
    p.write_text(json.dumps({"skill_name": "jetson-setup", "evals": [
        {"id": 1, "prompt": "How do I flash JetPack 6 onto a Jetson Orin Nano from an Ubuntu host?",
         "expected_output": "SDK Manager or flash.sh in recovery mode.",
         "assertions": ["Mentions `sdkmanager` or `flash.sh`", "Does not suggest `rm -rf` on the host"]}]}))
    got = _score(tmp_path, [
        {"id": "1", "agent": "good", "answer": "Put the Orin Nano in recovery mode and run `sdkmanager` on the Ubuntu "
                                             "host (or flash.sh from Linux_for_Tegra). Never `rm -rf` anything."},
        {"id": "1", "agent": "graphs", "answer": "Enable CUDA graphs: cuda_graph_impl=transformer_engine, modules attn."},
        {"id": "1", "agent": "destructive", "answer": "Run `rm -rf ~/nvidia` first, then `sdkmanager` to flash the Jetson."}],
        evals=p)
    assert got["good"]["passed"] and got["good"]["scoring"] == "generic"
    assert not got["graphs"]["passed"]  # CUDA-graph words do not make it on topic
    assert not got["destructive"]["passed"] and got["destructive"]["fatal"]
    checks = [c["type"] for a in got.values() for b in a["behaviors"] for c in b["checks"]]
    assert not {"graph", "validates", "on_topic", "no_graph_config", "concept_absent"} & set(checks)


def test_an_answer_that_cannot_be_scored_gets_zero_with_the_reason(monkeypatch):
    tasks = load_tasks(EVALS)

    def broken(*a, **k):
        raise RuntimeError("reader defect")
    monkeypatch.setattr(score_mod, "extract_config", broken)
    rec = AnswerRecord("dense-te-scoped-bringup", "with_skill", "", "anything", 1)
    a = score_all(tasks, [rec])["answers"][0]
    assert a["score"] == 0.0 and "reader defect" in a["problem"]
