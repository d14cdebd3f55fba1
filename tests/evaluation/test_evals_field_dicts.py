"""Named dicts of bare config fields (one per era, typed or not), Python paragraphs written without
a fence, and ``dataclasses.replace`` on a config section are read as the settings they hold."""

from __future__ import annotations

from skill_tools.config.read_python import read_python
from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.field_dicts import field_dicts

TWO_ERAS = '''GRAPHED = ["attn", "moe_router"]

LEGACY_016_017: Overrides = {
    "cuda_graph_impl": "transformer_engine",
    "cuda_graph_scope": GRAPHED,
    "use_te_rng_tracker": True,
}

CURRENT_018_PLUS: Overrides = {
    "cuda_graph_impl": "transformer_engine",
    "cuda_graph_scope": None,
    "cuda_graph_modules": GRAPHED,
    "use_te_rng_tracker": True,
    "te_rng_tracker": True,
}
'''


def test_each_dict_is_read_with_the_era_its_name_says():
    found = {name: (era, lines) for name, era, _, lines, _ in field_dicts(TWO_ERAS)}
    assert found["LEGACY_016_017"][0] == "legacy" and "model.cuda_graph_scope=[attn,moe_router]" in found["LEGACY_016_017"][1]
    assert found["CURRENT_018_PLUS"][0] == "current" and "rng.te_rng_tracker=true" in found["CURRENT_018_PLUS"][1]


def test_dicts_without_a_graph_key_or_with_unknown_keys_are_not_config():
    assert list(field_dicts('STATS = {"step": 1, "loss": 2.0}\nX = {"cuda_graph_impl": "local", "colour": "red"}\n')) == []


def test_unfenced_python_paragraphs_are_read_one_era_at_a_time():
    text = "Overrides for both eras:\n\n" + TWO_ERAS + "\nPick the one for your version.\n"
    cur = extract_config(text, era="current").config
    assert cur.get("model.cuda_graph_modules") == ["attn", "moe_router"] and cur.get("model.cuda_graph_scope") is None
    old = extract_config(text, era="legacy").config
    assert old.get("model.cuda_graph_scope") == ["attn", "moe_router"] and not old.has("model.cuda_graph_modules")


def test_a_dict_named_as_the_thing_to_avoid_is_not_advice():
    text = ('```python\nOLD_BROKEN = {"cuda_graph_impl": "local", "cuda_graph_modules": ["attn"]}\n'
            'FIXED = {"cuda_graph_impl": "transformer_engine", "cuda_graph_modules": ["attn"]}\n```\n')
    assert extract_config(text).config.get("model.cuda_graph_impl") == "transformer_engine"


def test_dataclasses_replace_on_a_section_sets_its_fields():
    cfg = read_python('cfg.model = dataclasses.replace(cfg.model, cuda_graph_impl="transformer_engine", '
                      'cuda_graph_modules=["attn"])\ncfg.rng = replace(cfg.rng, te_rng_tracker=True)\n', "t.py")
    assert cfg.values == {"model.cuda_graph_impl": "transformer_engine", "model.cuda_graph_modules": ["attn"],
                          "rng.te_rng_tracker": True}


def test_an_english_paragraph_is_not_code():
    text = "Yes\nno\n\nThe graphs capture once.\nThen they replay.\n"
    assert extract_config(text).blocks == []
