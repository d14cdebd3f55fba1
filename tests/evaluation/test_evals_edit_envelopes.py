"""Edits as coding agents print them: Codex's ``*** Begin Patch``, aider's SEARCH/REPLACE, Cursor's
``# ... existing code ...`` excerpts, a Dockerfile's ``CMD [...]``. The envelope comes off; the
new side is suggested and the old side rejected. Answers written for these tests."""

from __future__ import annotations

from skill_tools.evaluation.envelopes import unwrap
from skill_tools.evaluation.extract import extract_config

F = "```"


def test_a_codex_patch_is_read_as_the_diff_it_is():
    text = (f"{F}\n*** Begin Patch\n*** Update File: recipes/llama.py\n@@ def build():\n"
            "-    cfg.model.cuda_graph_scope = [\"full_iteration\"]\n"
            "+    cfg.model.cuda_graph_impl = \"full_iteration\"\n+    cfg.model.cuda_graph_modules = []\n"
            "     cfg.ddp.check_for_nan_in_grad = False\n*** End Patch\n" + F + "\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration"
    assert ex.config.get("model.cuda_graph_modules") == []
    assert not ex.config.has("model.cuda_graph_scope")
    assert ex.counter_config.get("model.cuda_graph_scope") == ["full_iteration"]


def test_a_patch_that_adds_a_file_suggests_all_its_lines():
    body = "*** Begin Patch\n*** Add File: conf/graphs.yaml\nmodel:\n  cuda_graph_impl: local\n*** End Patch"
    text, kind = unwrap(body, "auto")
    assert kind == "diff" and "+model:" in text and "+  cuda_graph_impl: local" in text
    assert "End Patch" not in text


def test_an_aider_search_replace_block_rejects_the_search_side():
    text = (f"recipes/llama.py\n{F}python\n<<<<<<< SEARCH\n    cfg.model.cuda_graph_impl = \"local\"\n=======\n"
            "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n    cfg.model.cuda_graph_scope = [\"attn\", \"mlp\"]\n"
            f">>>>>>> REPLACE\n{F}\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_scope") == ["attn", "mlp"]


def test_a_cursor_excerpt_between_existing_code_markers_is_read():
    text = (f"{F}python:recipes/llama.py\n# ... existing code ...\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
            "    cfg.model.cuda_graph_modules = [\"attn\"]\n    # ... rest of the function ...\n" + F + "\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn"]


def test_a_dockerfile_cmd_array_is_the_launch_it_runs():
    text = ("FROM nvcr.io/nvidia/pytorch:26.01-py3\nWORKDIR /opt/Megatron-LM\n"
            "CMD [\"torchrun\", \"--nproc-per-node\", \"8\", \"pretrain_gpt.py\", \\\n"
            "     \"--cuda-graph-impl\", \"transformer_engine\", \"--cuda-graph-modules\", \"attn\", \\\n"
            "     \"--te-rng-tracker\"]\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["attn"] and cfg.get("rng.te_rng_tracker") is True


def test_a_bad_array_is_left_as_written():
    body = "CMD [\"torchrun\", --broken\n"
    assert unwrap(body, "auto") == (body, "auto")


def test_a_multirun_sweep_is_read_as_its_first_run():
    text = (F + "bash\npython run_recipe.py -m model.cuda_graph_impl=transformer_engine "
            "'model.cuda_graph_modules=[attn],[attn,mlp]' rng.te_rng_tracker=true\n" + F + "\n")
    assert extract_config(text).config.get("model.cuda_graph_modules") == ["attn"]
    body = "python x.py model.cuda_graph_modules=[attn],[attn,mlp]"  # no -m: left as written (Hydra refuses it)
    assert unwrap(body, "shell") == (body, "shell")
