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
