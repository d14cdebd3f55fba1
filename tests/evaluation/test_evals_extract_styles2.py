"""More styles agents write: a bash array of Hydra overrides, a bare list of override lines, an env
file whose header says "source this before ...". Written for these tests."""

from __future__ import annotations

from skill_tools.evaluation.extract import extract_config


def test_a_bash_array_of_hydra_overrides_is_read():
    script = ("#!/usr/bin/env bash\nset -e\n\nOVR=(\n  model.cuda_graph_impl=transformer_engine\n"
              "  \"model.cuda_graph_modules=[attn,mlp]\"\n  rng.te_rng_tracker=true\n)\n\n"
              "python run_recipe.py --recipe llama3_8b \"${OVR[@]}\"\n")
    cfg = extract_config(script).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine"
    assert cfg.get("model.cuda_graph_modules") == ["attn", "mlp"] and cfg.get("rng.te_rng_tracker") is True


def test_bare_override_lines_with_a_list_value_are_overrides_not_python():
    text = ("These go on the command line:\n\nmodel.cuda_graph_impl=full_iteration\nmodel.cuda_graph_modules=[]\n"
            "ddp.check_for_nan_in_grad=false\n\nThen compare post-capture steps.")
    cfg = extract_config(text).config
    assert cfg.get("model.cuda_graph_impl") == "full_iteration" and cfg.get("ddp.check_for_nan_in_grad") is False


def test_a_header_that_says_source_this_before_does_not_reject_the_file():
    env_file = ("# job.env: source this before torchrun; the launcher's env was missing\n"
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\nNCCL_GRAPH_REGISTER=0\n")
    env = extract_config(env_file).config.env
    assert env.get("NCCL_GRAPH_REGISTER") == "0"
    rejected = extract_config("Before:\n\n```bash\nexport NCCL_GRAPH_REGISTER=1\n```\n").config.env
    assert "NCCL_GRAPH_REGISTER" not in rejected


def test_an_unfenced_git_diff_over_two_files_keeps_its_sides():
    text = ("Both files:\n\ndiff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n"
            "-    cfg.model.enable_cuda_graph = True\n+    cfg.model.cuda_graph_impl = \"full_iteration\"\n"
            "     cfg.ddp.check_for_nan_in_grad = False\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "full_iteration"
    assert not ex.config.has("model.enable_cuda_graph") and ex.counter_config.has("model.enable_cuda_graph")


def test_a_when_condition_on_captured_modules():
    from skill_tools.config.era import era_for
    from skill_tools.evaluation.answer_context import AnswerContext
    from skill_tools.evaluation.rubric import run_check

    spec = {"type": "config", "keys": ["model.recompute_modules"], "not_in": [["moe"]],
            "when": {"modules_include": ["moe_router"]}}

    def run(text):
        return run_check(AnswerContext(text, extract_config(text), era_for("0.19.2")), spec)

    shrunk = run("```python\ncfg.model.recompute_modules = [\"moe\"]\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n"
                 "cfg.model.cuda_graph_modules = [\"attn\"]\n```\n")
    assert shrunk.score is None
    kept = run("```python\ncfg.model.recompute_modules = [\"moe\"]\ncfg.model.cuda_graph_impl = \"transformer_engine\"\n"
               "cfg.model.cuda_graph_modules = [\"attn\", \"moe_router\"]\n```\n")
    assert kept.score == 0.0 and kept.fatal


def test_a_quoted_setting_is_the_users_not_the_answers():
    text = ("You wrote:\n\n> --cuda-graph-impl full_iteration --cuda-graph-modules attn\n\n"
            "On 0.17 write instead:\n\n```bash\n--cuda-graph-impl local --cuda-graph-scope full_iteration\n```\n")
    ex = extract_config(text)
    assert ex.config.get("model.cuda_graph_impl") == "local" and not ex.config.has("model.cuda_graph_modules")


def test_a_rejected_no_flag_keeps_the_megatron_lm_default_on():
    script = ("ARGS=(\n  --delay-wgrad-compute\n  --cuda-graph-impl transformer_engine\n)\n"
              "# never add --no-gradient-accumulation-fusion here: graphs need the fused wgrad path\n"
              "torchrun pretrain_gpt.py \"${ARGS[@]}\"\n")
    cfg = extract_config(script).config
    assert cfg.get("model.gradient_accumulation_fusion") is True


def test_a_kubernetes_manifest_gives_its_env_list_and_its_command_flags():
    manifest = ("```yaml\nkind: PyTorchJob\nspec:\n  pytorchReplicaSpecs:\n    Worker:\n      template:\n        spec:\n"
                "          containers:\n          - name: trainer\n            env:\n            - name: NCCL_GRAPH_REGISTER\n"
                "              value: \"0\"\n            args: [\"torchrun pretrain_gpt.py --cuda-graph-impl local "
                "--cuda-graph-scope full_iteration\"]\n```\n")
    cfg = extract_config(manifest).config
    assert cfg.env.get("NCCL_GRAPH_REGISTER") == "0"
    assert cfg.get("model.cuda_graph_impl") == "local" and cfg.get("model.cuda_graph_scope") == ["full_iteration"]


def test_a_markdown_list_of_settings_is_not_a_diff():
    bullets = ("- implementation: `cuda_graph_impl: transformer_engine`\n- captured: `cuda_graph_modules: [attn]`\n"
               "- and switch on the TE RNG tracker\n")
    cfg = extract_config(bullets).config
    assert cfg.get("model.cuda_graph_impl") == "transformer_engine" and cfg.get("model.cuda_graph_modules") == ["attn"]
    assert cfg.get("rng.te_rng_tracker") is True


def test_a_module_list_after_a_label():
    cfg = extract_config("1. Impl: `transformer_engine` via `cuda_graph_impl=transformer_engine`.\n"
                         "2. Modules: `[attn, moe]` on a drop-and-pad model.\n").config
    assert cfg.get("model.cuda_graph_modules") == ["attn", "moe"]
