"""Advice stated in prose and in a config's comments, read with its polarity and judged like
settings: a fallback that switches a required companion off, an alternative in a comment that the
validator refuses, groups of settings named in words. The answers are written for these tests."""

from __future__ import annotations

from pathlib import Path

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.polarity import ALTERNATIVE, LinePolarity
from skill_tools.evaluation.prose import stated_in_words
from skill_tools.evaluation.score import Scorer
from skill_tools.evaluation.tasks import AnswerRecord, load_tasks

F = "```"
ROOT = Path(__file__).resolve().parents[2]


def _score(task_id: str, text: str):
    return Scorer(load_tasks(ROOT / "evals" / "evals.json")).score(AnswerRecord(task_id, "with_skill", "t", text, 1))


def test_groups_of_settings_named_in_words():
    said = {(s.key, s.value) for s in stated_in_words("Please turn the NaN checks off before capturing.")}
    assert said == {("rerun_state_machine.check_for_nan_in_loss", False), ("ddp.check_for_nan_in_grad", False)}
    said = {(s.key, s.value) for s in stated_in_words("Then set the two TE RNG flags to true.")}
    assert said == {("model.use_te_rng_tracker", True), ("rng.te_rng_tracker", True)}
    assert not list(stated_in_words("The RNG tracker matters for dropout."))


def test_a_fallback_after_an_abbreviation_is_still_a_fallback():
    line = ("Should the tracker cause problems (i.e. a mismatch on resume) you may switch "
            "`model.use_te_rng_tracker=False`.")
    at = line.index("model.use")
    assert LinePolarity(line).at(at, at + 20).role == ALTERNATIVE


def test_a_preference_opener_offers_an_option():
    line = "If you would rather keep it simple, `cuda_graph_impl=\"full_iteration\"` also works."
    at = line.index("cuda_graph_impl")
    assert LinePolarity(line).at(at, at + 15).role == ALTERNATIVE


def test_a_fallback_that_switches_the_rng_tracker_off_fails_the_answer():
    config = (f"{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\ncfg.model.cuda_graph_modules = [\"mlp\"]\n"
              f"cfg.model.use_te_rng_tracker = True\ncfg.rng.te_rng_tracker = True\n{F}\n")
    lead = ("The local implementation with a partial scope is not supported by Bridge; it builds the local "
            "CudaGraphManager before is_moe_layer exists. Use Transformer Engine for the MLP:\n\n")
    good = _score("local-partial-scope-crash", lead + config)
    bad = _score("local-partial-scope-crash", lead + config +
                 "\nIf the tracker causes issues when you resume, just turn the TE RNG tracker off again.\n")
    assert good.passed
    assert not bad.passed and any("te-rng-tracker" in f for f in bad.to_dict()["fatal"])


def test_an_alternative_in_a_config_comment_is_judged():
    body = ("# serving with decode graphs\ncuda_graph_impl: local\ninference_cuda_graph_scope: layer\n")
    good = _score("inference-decode-graphs", body + "# capture and replay under torch.inference_mode\n")
    bad = _score("inference-decode-graphs", body +
                 "# alternative: cuda_graph_impl: transformer_engine works for decode too\n")
    ex = extract_config(body + "# alternative: cuda_graph_impl: transformer_engine works for decode too\n")
    assert ex.config.get("model.cuda_graph_impl") == "local"
    assert [a.get("model.cuda_graph_impl") for a in ex.alternatives] == ["transformer_engine"]
    assert not bad.passed and bad.score < good.score


def test_a_comment_that_describes_its_line_adds_nothing():
    ex = extract_config(f"{F}yaml\nmodel:\n  cuda_graph_impl: transformer_engine  # was cuda_graph_impl: local\n{F}\n")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine" and not ex.alternatives


def test_an_option_in_a_comment_may_go_on_over_the_next_comment_line():
    script = ("torchrun pretrain_gpt.py \\\n  --cuda-graph-impl transformer_engine --cuda-graph-modules mlp \\\n"
              "  --te-rng-tracker\n# Alternative: capture the whole step with --cuda-graph-impl full_iteration\n"
              "# alongside --no-check-for-nan-in-loss-and-grad.\n")
    ex = extract_config(script)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert len(ex.alternatives) == 1
    option = ex.alternatives[0]
    assert option.get("model.cuda_graph_impl") == "full_iteration"
    assert option.get("rerun_state_machine.check_for_nan_in_loss") is False


def test_a_setting_that_spells_out_a_condition_in_an_aside_is_not_recommended():
    text = ("Whole-layer capture works only with a padded dispatcher (`moe_expert_capacity_factor=1.0` plus "
            "padding), which you do not have.\n\nUse instead:\n\n"
            f"{F}python\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n{F}\n")
    cfg = extract_config(text).config
    assert not cfg.has("model.moe_expert_capacity_factor")
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    # an aside that explains what to set is still a recommendation
    cfg = extract_config("Turn on the tracker (`rng.te_rng_tracker=True`) before capture.").config
    assert cfg.get("rng.te_rng_tracker") is True


def test_prohibitions_in_german_and_chinese_prose():
    zh = "请设置 `cuda_graph_impl=\"transformer_engine\"`。不要使用 `cuda_graph_impl=\"local\"`。"
    ex = extract_config(zh)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.counter_config.get("model.cuda_graph_impl") == "local"
    de = "Setze `cuda_graph_impl=transformer_engine` statt `cuda_graph_impl=local`."
    ex = extract_config(de)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
