"""Answers in the styles agents write: config without fences, dicts of dotted overrides, parallel
sizes in prose, prose that takes a setting away, hedged options, nested launcher keys."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config

F = "```"


def test_indented_recipe_excerpt_is_read():
    text = ("Here are the overrides:\n\n    overrides = {\n        \"model.cuda_graph_impl\": \"transformer_engine\",\n"
            "        \"model.cuda_graph_modules\": [\"attn\"],   # A/B: add mlp\n        \"rng.te_rng_tracker\": True,\n    }\n\n"
            "Keep shapes static.")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn"]
    assert cfg.get("rng.te_rng_tracker") is True


def test_whole_answer_yaml_and_json_dict_of_dotted_overrides():
    yaml_answer = "# excerpt\nmodel:\n  cuda_graph_impl: transformer_engine   # TE\n  cuda_graph_scope:\n  - attn\nrng:\n  te_rng_tracker: true\n"
    cfg = extract_config(yaml_answer).config
    assert cfg.get("model.cuda_graph_scope") == ["attn"] and cfg.get("rng.te_rng_tracker") is True
    json_answer = '{\n  "model.cuda_graph_impl": "full_iteration",\n  "ddp.check_for_nan_in_grad": false\n}\n\nThen measure.'
    cfg = extract_config(json_answer).config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration" and cfg.get("ddp.check_for_nan_in_grad") is False


def test_bare_launch_script_with_quoted_flag_variables():
    script = ("#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n\nGRAPH_ARGS=\"--cuda-graph-impl transformer_engine \\\n"
              "  --cuda-graph-modules attn moe \\\n  --te-rng-tracker\"\n\ntorchrun --nproc-per-node 8 pretrain_gpt.py ${GRAPH_ARGS}\n")
    cfg = extract_config(script).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn", "moe"]


def test_parallel_sizes_as_people_write_them():
    cfg = extract_config("Keep TP=8 (one node) and PP=2; set `cuda_graph_impl=transformer_engine`.").config
    assert cfg.get("model.tensor_model_parallel_size") == 8 and cfg.get("model.pipeline_model_parallel_size") == 2


def test_prose_that_takes_a_setting_away_does_not_set_it():
    ex = extract_config('Fix it by deleting the `cuda_graph_scope = "full"` line and leave `--cuda-graph-scope` out; '
                        "keep `cuda_graph_warmup_steps=3`.")
    assert not ex.config.has("model.cuda_graph_scope") and ex.config.get("model.cuda_graph_warmup_steps") == 3


def test_hedged_options_are_not_merged():
    text = ("Not OK. Choose one:\n\n  graphs:   cpu_offloading=False, cuda_graph_impl=\"transformer_engine\"\n"
            "  offload:  cpu_offloading=True, cuda_graph_impl=\"none\"\n")
    ex = extract_config(text)
    assert ex.config.get("model.cpu_offloading") is False and ex.config.get("model.cuda_graph_impl") == "transformer_engine"
    assert any(a.get("model.cpu_offloading") is True for a in ex.alternatives)


def test_nested_launcher_keys_env_maps_and_aliases():
    text = (f"{F}yaml\nexecutor:\n  env_vars:\n    NCCL_GRAPH_REGISTER: \"0\"\nrecipe_overrides:\n"
            f"  model.cuda_graph_impl: transformer_engine\n{F}\n\n{F}python\ncfg.comm_overlap.overlap_param_gather_with_optimizer_step = True\n"
            f"model_config.inference_cuda_graph_scope = \"block\"\n{F}\n")
    cfg = extract_config(text).config
    assert cfg.env.get("NCCL_GRAPH_REGISTER") == "0" and cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("optimizer.overlap_param_gather_with_optimizer_step") is True  # the key the rule reads
    assert cfg.get("model.inference_cuda_graph_scope") == "block"


def test_bare_multi_file_diff_is_read_per_file():
    diff = ("--- a/r1.py\n+++ b/r1.py\n@@\n-    cfg.model.enable_cuda_graph = True\n+    cfg.model.cuda_graph_impl = \"full_iteration\"\n"
            "--- a/r2.py\n+++ b/r2.py\n@@\n     cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
            "-    cfg.model.cuda_graph_scope = [\"attn\"]\n+    cfg.model.cuda_graph_modules = [\"attn\"]\n")
    ex = extract_config(diff)
    assert not ex.config.has("model.enable_cuda_graph") and not ex.config.has("model.cuda_graph_scope")
    assert ex.counter_config.get("model.enable_cuda_graph") is True


def test_a_prose_label_is_not_code_and_headings_recommend_nothing():
    ex = extract_config(f"Config:\n{F}python\ncfg.model.cuda_graph_impl = \"local\"\n{F}\n### Before: `cuda_graph_scope = [\"attn\"]`\n")
    assert [b.kind for b in ex.blocks] == ["python"] and not ex.config.has("model.cuda_graph_scope")
