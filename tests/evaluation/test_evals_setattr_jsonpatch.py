"""Settings written through ``setattr`` (also over a module constant or a loop over a literal dict)
and as a JSON Patch (RFC 6902) are read as the assignments they are. Parsed, never run. Answers
written for these tests."""

from __future__ import annotations

from one_answer import score_one

from skill_tools.evaluation.envelopes import json_patch
from skill_tools.evaluation.extract import extract_config

F = "```"


def test_setattr_with_a_constant_name_and_a_loop_over_a_literal_dict():
    code = ('KEY = "cuda_graph_modules"\nOVERRIDES = {"cuda_graph_impl": "transformer_engine", "use_te_rng_tracker": True}\n'
            "m = cfg.model\nsetattr(m, KEY, [\"attn\"])\nfor k, v in OVERRIDES.items():\n    setattr(cfg.model, k, v)\n"
            'setattr(cfg.rng, "te_rng_tracker", True)\n')
    cfg = extract_config(f"{F}python\n{code}{F}\n").config
    assert cfg.get("model.cuda_graph_modules") == ["attn"] and cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.use_te_rng_tracker") is True and cfg.get("rng.te_rng_tracker") is True


def test_setattr_with_a_name_bound_twice_is_not_guessed():
    code = 'KEY = "cuda_graph_modules"\nKEY = "cuda_graph_scope"\nsetattr(cfg.model, KEY, ["attn"])\n'
    cfg = extract_config(f"{F}python\n{code}{F}\n").config
    assert not cfg.has("model.cuda_graph_modules") and not cfg.has("model.cuda_graph_scope")


def test_a_json_patch_reads_as_what_it_writes():
    patch = ('[{"op": "replace", "path": "/model/cuda_graph_impl", "value": "transformer_engine"},\n'
             ' {"op": "add", "path": "/model/cuda_graph_modules", "value": ["attn"]},\n'
             ' {"op": "add", "path": "/model/cuda_graph_modules/-", "value": "mlp"},\n'
             ' {"op": "remove", "path": "/model/cuda_graph_scope"},\n'
             ' {"op": "add", "path": "/rng/te_rng_tracker", "value": true},\n'
             ' {"op": "add", "path": "/model/use_te_rng_tracker", "value": true}]')
    assert json_patch('[1, 2]') is None and json_patch('[{"op": "x"}]') is None
    cfg = extract_config(f"{F}json\n{patch}\n{F}\n").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn"]
    lead = "Graph attention only with TE for the bring-up; compare post-capture iterations with eager.\n\n"
    assert score_one("dense-te-scoped-bringup", lead + f"{F}json\n{patch}\n{F}\n")["passed"]
    wrong = patch.replace('"value": ["attn"]', '"value": ["attn", "moe"]')
    assert not score_one("dense-te-scoped-bringup", lead + f"{F}json\n{wrong}\n{F}\n")["passed"]


def test_a_tool_call_written_as_json_reads_as_its_payload():
    edit = ('{"tool": "edit_file", "path": "recipe.py", "old_string": "cfg.model.cuda_graph_impl = \\"none\\"", '
            '"new_string": "cfg.model.cuda_graph_impl = \\"transformer_engine\\"\\ncfg.model.cuda_graph_modules = '
            '[\\"attn\\"]\\ncfg.rng.te_rng_tracker = True"}')
    for text in (edit + "\n", f"{F}json\n{edit}\n{F}\n"):
        cfg = extract_config(text).config
        assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn"]
    call = ('{"type": "function", "function": {"name": "bash", "arguments": '
            '"{\\"command\\": \\"torchrun pretrain_gpt.py --cuda-graph-impl local --te-rng-tracker\\"}"}}')
    assert extract_config(f"{F}json\n{call}\n{F}\n").config.get("model.cuda_graph_impl") == "local"
    # a config that merely has a one-word "content" key is no tool call
    cfg = extract_config(f'{F}json\n{{"model": {{"cuda_graph_impl": "local"}}, "content": "x"}}\n{F}\n').config
    assert cfg.get("model.cuda_graph_impl") == "local"


def test_braced_blocks_read_as_the_mapping_they_mean():
    from skill_tools.evaluation.envelopes import braced_to_yaml

    hcl = 'model {\n  cuda_graph_impl = "transformer_engine"\n  cuda_graph_modules = ["attn"]\n}\nrng {\n  te_rng_tracker = true\n}\n'
    cfg = extract_config(f"{F}hcl\n{hcl}{F}\n").config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("rng.te_rng_tracker") is True
    # HOCON without a fence, after prose: the offloading it keeps is read, and refused with graphs on
    hocon = ("Switch the impl and keep the offloading:\n\nmodel {\n  cpu_offloading: true\n"
             "  cuda_graph_impl: \"local\"   # was transformer_engine\n  cuda_graph_modules: [\"attn\"]\n"
             "  use_te_rng_tracker: true\n}\n\nrng {\n  te_rng_tracker: true\n}\n")
    assert extract_config(hocon).config.get("model.cpu_offloading") is True
    assert not score_one("cpu-offload-conflict", hocon)["passed"]
    assert braced_to_yaml("model {\n  x: 1\n") is None and braced_to_yaml("model {\n  x y z\n}\n") is None
