"""Answers written as launcher files, CI steps, agent transcripts and sectioned configs, and prose
whose polarity sits in its verbs ("cannot use", "replaced X with Y"). Written for these tests."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config
from skill_tools.evaluation.keys import call_env, misplaced


def test_the_command_inside_bash_c_is_read_and_srun_options_are_not_settings():
    script = ("#!/bin/bash\n#SBATCH -N 1\nsrun --container-image=$IMG --container-mounts=/data:/data \\\n"
              "  bash -c \"cd /opt/bridge && python run_recipe.py --recipe qwen3_8b \\\n"
              "    model.cuda_graph_impl=transformer_engine 'model.cuda_graph_modules=[attn]' \\\n"
              "    rng.te_rng_tracker=true\"\n")
    cfg = extract_config(script).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["attn"] and cfg.get("rng.te_rng_tracker") is True
    assert not any("container" in k for k in cfg.values)


def test_a_manifest_whose_command_holds_flags_is_still_yaml():
    manifest = ("kind: Job\nspec:\n  template:\n    spec:\n      containers:\n        - name: trainer\n"
                "          env:\n            - name: NCCL_GRAPH_REGISTER\n              value: \"0\"\n"
                "          command: [\"torchrun\", \"--nproc-per-node\", \"8\", \"pretrain_gpt.py\"]\n"
                "          resources:\n            limits:\n              nvidia.com/gpu: 8\n")
    assert extract_config(manifest).config.env.get("NCCL_GRAPH_REGISTER") == "0"


def test_an_option_named_in_prose_without_its_value_sets_nothing():
    text = ("Pass --cuda-graph-impl local --inference-cuda-graph-scope layer; other values fail with "
            "\"not allowed for --cuda-graph-impl=...\".")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "local"


def test_cannot_use_rejects_and_replaced_with_recommends_the_new_side():
    text = ("You cannot use `cuda_graph_impl=\"transformer_engine\"` for decode. I replaced the old "
            "`enable_cuda_graph=True` with `cuda_graph_impl=\"local\"` and `inference_cuda_graph_scope=\"block\"`.")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "local"
    assert ex.config.get("model.inference_cuda_graph_scope") == "block"
    assert not ex.config.has("model.enable_cuda_graph") and ex.counter_config.has("model.enable_cuda_graph")


def test_an_arrow_rejects_only_the_setting_right_before_it():
    text = "Kept `cuda_graph_impl=\"transformer_engine\"`, renamed `cuda_graph_scope=[\"attn\"]` → `cuda_graph_modules=[\"attn\"]`."
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["attn"] and not ex.config.has("model.cuda_graph_scope")


def test_table_rows_labelled_by_a_version_belong_to_that_era():
    text = ("| megatron-core | setting |\n|---|---|\n| 0.17 | `cuda_graph_scope=[\"full_iteration_inference\"]` |\n"
            "| 0.19 | `inference_cuda_graph_scope=\"block\"` |\n")
    legacy = extract_config(text, era="legacy").config
    assert legacy.get("model.cuda_graph_scope") == ["full_iteration_inference"]
    assert not legacy.has("model.inference_cuda_graph_scope")


def test_a_fence_inside_a_list_item_is_read():
    text = ("1. Turn off offloading:\n   ```python\n   cfg.model.cpu_offloading = False\n"
            "   cfg.model.cuda_graph_impl = \"transformer_engine\"\n   ```\n")
    cfg = extract_config(text).config
    assert cfg.get("model.cpu_offloading") is False and cfg.get("model.cuda_graph_impl") == "transformer_engine"


def test_a_key_under_a_section_without_that_field_is_misplaced():
    assert misplaced({"train.cuda_graph_impl", "model.cuda_graph_impl", "rng.te_rng_tracker"}) == [
        ("train.cuda_graph_impl", "model.cuda_graph_impl")]
    assert misplaced({"model.container_mounts"}) == []  # model.* is where readers put unknown keys
    # ... unless the answer writes the section out: a DDP field set on cfg.model
    written = "cfg.model.fsdp_all_gather_in_start_param_sync = False\n"
    assert misplaced({"model.fsdp_all_gather_in_start_param_sync"}, written) == [
        ("model.fsdp_all_gather_in_start_param_sync", "ddp.fsdp_all_gather_in_start_param_sync")]
    assert misplaced({"model.fsdp_all_gather_in_start_param_sync"}, "fsdp_all_gather_in_start_param_sync: false") == []
    assert misplaced({"model.cuda_graph_impl"}, "cfg.model.cuda_graph_impl = 'local'") == []
    # the RNG tracker keys swapped between sections, in YAML, TOML and JSON
    for text in ("model:\n  cuda_graph_impl: local\n  te_rng_tracker: true\nrng:\n  use_te_rng_tracker: true\n",
                 "[model]\ncuda_graph_impl = 'local'\nte_rng_tracker = true\n[rng]\nuse_te_rng_tracker = true\n",
                 '{"model": {"te_rng_tracker": true}, "rng": {"use_te_rng_tracker": true}}'):
        assert misplaced({"model.te_rng_tracker", "rng.use_te_rng_tracker"}, text) == [
            ("model.te_rng_tracker", "rng.te_rng_tracker"), ("rng.use_te_rng_tracker", "model.use_te_rng_tracker")], text
    assert misplaced({"model.te_rng_tracker"}, "model:\n  cuda_graph_impl: local\nrng:\n  te_rng_tracker: true\n") == []


def test_a_ddp_field_written_on_cfg_model_fails_the_written_settings():
    from one_answer import score_one

    lead = ("The all-gather issued in start_param_sync runs outside the graph and is awaited inside it. Move the "
            "param gather out of the optimizer step and stop the FSDP all-gather at param-sync start:\n\n")
    code = ("```python\ncfg.optimizer.overlap_param_gather_with_optimizer_step = False\n"
            "cfg.{sec}.fsdp_all_gather_in_start_param_sync = False\n```\n")
    bad = score_one("diagnose-stream-capture-isolation", lead + code.format(sec="model"))
    assert not bad["passed"] and any("a field its section does not have" in f for f in bad["fatal"]), bad["fatal"]
    good = score_one("diagnose-stream-capture-isolation", lead + code.format(sec="ddp"))
    assert not any("a field its section does not have" in f for f in good["fatal"])


def test_env_passed_to_a_python_launcher_and_a_main_guard():
    script = ("def build():\n    cfg = make_config()\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
              "    return cfg\n\nif __name__ == \"__main__\":\n    ex = run.LocalExecutor(env_vars={\"NCCL_GRAPH_REGISTER\": \"0\"})\n"
              "    run.run(build(), executor=ex)\n")
    assert call_env(script) == {"NCCL_GRAPH_REGISTER": "0"}
    ex = extract_config("```python\n" + script + "```\n")
    assert not ex.unsafe and ex.config.env.get("NCCL_GRAPH_REGISTER") == "0"
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"


def test_an_agent_edit_result_is_read_as_its_diff():
    numbered = ("● Update(train.py)\n  ⎿  Updated train.py with 1 addition and 1 removal\n"
                "     12 -    cfg.model.cuda_graph_impl = \"local\"\n"
                "     12 +    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
                "     13      cfg.rng.te_rng_tracker = True\n\nDone.")
    ex = extract_config(numbered)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine" and ex.config.get("rng.te_rng_tracker") is True
    plain = ("● Update(conf.yaml)\n  ⎿  Updated conf.yaml with 2 additions\n     dataset:\n       seq_length: 4096\n"
             "  +    pad_to_max_length: true\n")
    assert extract_config(plain).config.get("dataset.pad_to_max_length") is True


def test_toml_and_ini_configs_are_read_by_their_parsers():
    toml = "# 0.17 spelling:\n\n[model]\ncuda_graph_impl = \"local\"\ncuda_graph_scope = [\"full_iteration\"]\n\n[ddp]\ncheck_for_nan_in_grad = false\n"
    cfg = extract_config(toml).config
    assert cfg.get("model.cuda_graph_scope") == ["full_iteration"] and cfg.get("ddp.check_for_nan_in_grad") is False
    ini = "[model]\ncuda_graph_impl = local   ; whole iteration\ncuda_graph_scope = [\"full_iteration\"]\n"
    assert extract_config("```ini\n" + ini + "```\n").config.get("model.cuda_graph_impl") == "local"


def test_a_dotlist_a_repr_and_a_ci_run_script():
    dotlist = "# Don't patch the tracker class: the assert asks for the TE tracker.\noverrides = [\n    \"rng.te_rng_tracker=true\",\n]\n"
    assert extract_config(dotlist).config.get("rng.te_rng_tracker") is True
    step = ("```yaml\n- name: train\n  run: |\n    python run_recipe.py --recipe x \\\n"
            "      model.cuda_graph_impl=full_iteration ddp.check_for_nan_in_grad=false\n```\n")
    cfg = extract_config(step).config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration" and cfg.get("ddp.check_for_nan_in_grad") is False
    listing = "Expected:\n\n```\n41:    cfg.model.cuda_graph_impl = \"local\"\n42:    cfg.rng.te_rng_tracker = True\n```\n"
    assert extract_config(listing).config.get("model.cuda_graph_impl") == "local"


def test_chinese_switch_verbs_stop_at_the_sentence_end():
    text = ("把 `cuda_graph_impl` 设为 `transformer_engine`，再开 TE RNG tracker。"
            "关掉 NaN 检查的那两行可以删掉：`ddp.check_for_nan_in_grad` 保持默认。")
    cfg = extract_config(text).config
    assert cfg.get("model.use_te_rng_tracker") is True
    assert cfg.get("ddp.check_for_nan_in_grad") is not False


def test_a_runtime_patch_of_library_internals_is_reported():
    from skill_tools.evaluation.patches import internal_patches

    first = "from megatron.core import tensor_parallel\nimport transformer_engine.pytorch as te\n"
    second = ("class Safe(te.SomeTracker):\n    def is_graph_safe(self):\n        return True\n"
              "tensor_parallel.random._TRACKER = Safe()\ncfg.model.use_te_rng_tracker = True\n")
    found = internal_patches([first, second])
    assert any("_TRACKER" in f for f in found) and any("is_graph_safe" in f for f in found)
    assert internal_patches(["import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\ncfg.model.x = 1\n"]) == []
    ex = extract_config("```python\n" + first + "```\n\n```python\n" + second + "```\n")
    assert any(f.kind == "patch" for f in ex.findings)


def test_here_documents_write_config_and_a_python_replace_has_two_sides():
    console = ("```console\n$ cat > overrides.yaml <<'EOF'\nmodel:\n  cuda_graph_impl: transformer_engine\nEOF\n"
               "$ python - <<'EOF'\nimport pathlib\np = pathlib.Path('r.py')\n"
               "p.write_text(p.read_text().replace('cfg.model.cuda_graph_modules = [\"mlp\"]', "
               "'cfg.model.cuda_graph_modules = [\"attn\"]'))\nEOF\n```\n")
    ex = extract_config(console)
    assert ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert ex.config.get("model.cuda_graph_modules") == ["attn"] and not ex.unsafe


PYTEST_ANSWER = '''"""Guard test for the drop-and-pad MoE graph (megatron-core 0.19).

Yes: drop-and-pad gives every expert a static input, so TE can capture `moe`.
"""
import pytest
from megatron.core.transformer import TransformerConfig

BASE = dict(
    num_moe_experts=8, moe_expert_capacity_factor=1.0, moe_pad_expert_input_to_capacity=True,
    cuda_graph_impl="transformer_engine", use_te_rng_tracker=True,
)


def test_accepted():
    cfg = TransformerConfig(**BASE, cuda_graph_modules=["attn", "moe"])
    assert cfg.cuda_graph_impl == "transformer_engine"


def test_router_refused():
    with pytest.raises(AssertionError, match="must not contain both moe and moe_router"):
        TransformerConfig(**BASE, cuda_graph_modules=["attn", "moe", "moe_router"])
'''


def test_an_unfenced_pytest_answer_is_read_as_python():
    """Function bodies (assert, with, raise) are code; a config a test expects to fail is not advice."""
    cfg = extract_config(PYTEST_ANSWER, era="current").config
    assert cfg.get("model.cuda_graph_modules") == ["attn", "moe"]
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.moe_pad_expert_input_to_capacity") is True


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["## 0.17 spelling\n", "\n",
                                                             "`cuda_graph_impl=\"full_iteration\"` came in **0.18**; on 0.17 use:"]},
        {"cell_type": "code", "metadata": {}, "outputs": [{"output_type": "stream", "text": ["cuda_graph_impl = full_iteration\n"]}],
         "execution_count": None,
         "source": ["cfg.model.cuda_graph_impl = \"local\"\n", "cfg.model.cuda_graph_scope = [\"full_iteration\"]\n",
                    "import megatron.core\n", "print(megatron.core.__version__)"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}


def test_a_notebook_is_read_as_its_cells():
    import json

    ex = extract_config(json.dumps(NOTEBOOK, indent=1), era="legacy")
    assert ex.config.get("model.cuda_graph_impl") == "local"
    assert ex.config.get("model.cuda_graph_scope") == ["full_iteration"]
    assert not [f for f in ex.findings if f.kind == "security"]  # __version__ is data, not an escape


def test_a_misplaced_key_names_every_section_that_has_the_field():
    assert misplaced({"model.seed"}, "COMMON='model.seed=1234 train.train_iters=150'") == [
        ("model.seed", "dataset.seed or rng.seed")]
