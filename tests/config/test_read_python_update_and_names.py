"""Python configs that name their values or update a section in one call: a module-level constant
used as a value (``cfg.model.cuda_graph_modules = MODS``), ``cfg.model.update({...})`` /
``update(dict(...))`` / ``update(k=v)`` / ``update(OVERRIDES)``. Parsed, never run."""

from __future__ import annotations

from skill_tools.config.read_python import read_python


def _read(text: str) -> dict:
    return read_python(text, "t.py").values


def test_a_module_constant_used_as_a_value_is_read():
    cfg = _read('MODS = ["attn", "moe_router"]\ncfg.model.cuda_graph_impl = "transformer_engine"\n'
                'cfg.model.cuda_graph_modules = MODS\n')
    assert cfg["model.cuda_graph_modules"] == ["attn", "moe_router"]


def test_a_constant_inside_a_mapping_and_a_call_is_read():
    cfg = _read('GRAPHED = ["attn"]\nBASE = {"cuda_graph_impl": "transformer_engine", "cuda_graph_modules": GRAPHED}\n'
                'WARM = 3\ntc = TransformerConfig(num_layers=2, **BASE, cuda_graph_warmup_steps=WARM)\n')
    assert cfg["model.cuda_graph_modules"] == ["attn"] and cfg["model.cuda_graph_warmup_steps"] == 3


def test_a_name_bound_twice_is_not_a_constant():
    cfg = _read('MODS = ["attn"]\nMODS = ["mlp"]\ncfg.model.cuda_graph_modules = MODS\n')
    assert "model.cuda_graph_modules" not in cfg


def test_update_calls_set_the_sections_keys():
    assert _read('cfg.model.update({"cuda_graph_impl": "local", "cuda_graph_modules": ["attn"]})\n') == \
        {"model.cuda_graph_impl": "local", "model.cuda_graph_modules": ["attn"]}
    assert _read('cfg.model.update(dict(cuda_graph_impl="local"))\ncfg.rng.update(te_rng_tracker=True)\n') == \
        {"model.cuda_graph_impl": "local", "rng.te_rng_tracker": True}
    assert _read('OVR = {"cuda_graph_impl": "full_iteration"}\nm = cfg.model\nm.update(OVR)\n') == \
        {"model.cuda_graph_impl": "full_iteration"}


def test_update_of_something_else_is_not_a_setting():
    assert _read('stats.update({"cuda_graph_impl": "local"})\nos.environ.update(X="1")\n') == {}
