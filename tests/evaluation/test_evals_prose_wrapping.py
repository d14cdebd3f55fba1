"""Sentences hard-wrapped across lines (changelogs, e-mail, commit bodies) and parenthesised
asides: a setting is judged by the words of its whole clause, not those of its physical line."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.polarity import wrapped_lead

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
