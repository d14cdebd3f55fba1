"""Sentences hard-wrapped across lines (changelogs, e-mail, commit bodies) and parenthesised
asides: a setting is judged by the words of its whole clause, not those of its physical line."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.wrapping import wrapped_lead

CHANGELOG = ("### Changed\n"
             "- **recipe**: removed deprecated `enable_cuda_graph = True` (it meant `local`) and\n"
             "  `cuda_graph_scope = [\"full_iteration\"]`; now\n"
             "  `cuda_graph_impl = \"full_iteration\"`.\n")


def test_a_removal_wrapped_onto_the_next_line_still_removes():
    ex = extract_config(CHANGELOG, era="current")
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration"
    assert not ex.config.has("model.cuda_graph_scope")
    assert ex.counter_config.get("model.cuda_graph_scope") == ["full_iteration"]


def test_a_finished_sentence_or_a_new_item_starts_afresh():
    assert wrapped_lead("Do not set `enable_cuda_graph`.", "Set `cuda_graph_impl=local`.") == ""
    assert wrapped_lead("- never `enable_cuda_graph`", "- `cuda_graph_impl=local`") == ""
    assert wrapped_lead("- removed `x` and", "  `y`; now") == "- removed `x` and"
    text = "Do not set `enable_cuda_graph`.\nSet `cuda_graph_impl=\"local\"` with `cuda_graph_scope=[\"full_iteration\"]`."
    assert extract_config(text, era="legacy").config.get("model.cuda_graph_impl") == "local"


def test_an_aside_does_not_cut_the_clause_it_sits_in():
    ex = extract_config("Delete `enable_cuda_graph=true` (the old switch) and `cuda_graph_scope=[\"attn\"]`; "
                        "set `cuda_graph_impl=\"transformer_engine\"`.", era="current")
    assert not ex.config.has("model.cuda_graph_scope")
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"


def test_an_era_aside_after_a_setting_tags_that_setting():
    text = ("FIX: cfg.model.cuda_graph_modules = [\"mlp\"]   (0.18+)\n"
            "     cfg.model.cuda_graph_scope = [\"mlp\"]   (0.16/0.17)\n")
    assert extract_config(text, era="current").config.get("model.cuda_graph_modules") == ["mlp"]
    assert not extract_config(text, era="current").config.has("model.cuda_graph_scope")
    assert extract_config(text, era="legacy").config.get("model.cuda_graph_scope") == ["mlp"]


def test_numbered_options_keep_their_numbers():
    ex = extract_config('Either (1) `recompute_modules=["mlp"]`; or (2) keep full recompute and use '
                        '`cuda_graph_impl="full_iteration"`.')
    assert not ex.config.has("model.cuda_graph_impl")


def test_on_as_a_preposition_is_no_state():
    """"Megatron switches to the TE RNG tracker on its own" describes; it turns nothing on."""
    assert extract_config("Megatron switches to the TE RNG tracker on its own.", era="current").config.values == {}
    assert extract_config("The RNG tracker stays on.", era="current").config.get("rng.te_rng_tracker") is True


def test_keeping_megatrons_own_tracker_turns_the_te_tracker_off():
    option = extract_config("If you want bit-exact runs, keep Megatron's default `CudaRNGStatesTracker` and switch "
                            "to the local impl.", era="current").alternatives[0]
    assert option.get("model.use_te_rng_tracker") is False and option.get("rng.te_rng_tracker") is False
    assert option.get("model.cuda_graph_impl") == "local"
    said = extract_config("Keep Megatron's own RNG tracker.", era="current").config
    assert said.get("rng.te_rng_tracker") is False


def test_an_if_clause_aside_names_a_case_and_is_the_alternative_offers():
    ex = extract_config("If (and only if) you run drop-and-pad (`moe_pad_expert_input_to_capacity: true`), "
                        "`cuda_graph_modules: [moe]` is the alternative.", era="current")
    assert not ex.config.has("model.moe_pad_expert_input_to_capacity")
    assert not ex.config.has("model.cuda_graph_modules")
    assert ex.alternatives and ex.alternatives[0].get("model.cuda_graph_modules") == ["moe"]


def test_the_rest_of_a_wrapped_sentence_lends_its_era():
    text = ("```python\ncfg.model.cuda_graph_impl = \"local\"\ncfg.model.cuda_graph_scope = [\"full_iteration\"]\n```\n\n"
            "**Why this spelling:** on 0.16 `cuda_graph_impl` accepts only `none`, `local` and\n"
            "`transformer_engine`. The standalone `cuda_graph_impl=\"full_iteration\"` value, and the\n"
            "`cuda_graph_modules` key, come in 0.18.\n")
    cfg = extract_config(text, era="legacy").config
    assert cfg.get("model.cuda_graph_impl") == "local"
    code = ("   cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
            "   cfg.model.cuda_graph_modules = [\"mlp\"]   # cuda_graph_scope=[\"mlp\"] on mcore 0.16/0.17\n")
    assert extract_config("So:\n" + code, era="current").config.get("model.cuda_graph_impl") == "transformer_engine"
