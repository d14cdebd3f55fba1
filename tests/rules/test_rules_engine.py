"""Rules fire on the configs of the pain-point catalog, with usable messages and fixes."""

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.rules.engine import check

CUR, OLD = era_for("0.19.2"), era_for("0.16.1")


def rules(text, era=CUR, env=None):
    return {f.rule: f for f in check(read_text(text), era, env=env)}


@pytest.mark.legacy
def test_misspelled_scope_says_did_you_mean():
    f = rules("model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [attention]\n", OLD)["scope-unknown"]
    assert "did you mean 'attn'" in f.message and "valid:" in f.message and f.fix == {"model.cuda_graph_scope": ["attn"]}


def test_te_rng_tracker_and_nan_check():
    found = rules("model:\n  cuda_graph_impl: full_iteration\nrerun_state_machine:\n  check_for_nan_in_loss: true\n")
    assert found["te-rng-tracker-required"].severity == "error" and found["nan-check-full-iteration"].severity == "error"


def test_megatron_lm_seeds_a_graph_safe_rng_itself():
    """initialize.py passes use_cudagraphable_rng=args.cuda_graph_impl != "none" (core_v0.16.0-0.19.0):
    no enforcer of the TE tracker in a Megatron-LM launch, whatever the impl."""
    for flags in ("--cuda-graph-impl transformer_engine --cuda-graph-modules attn",
                  "--transformer-impl inference_optimized --cuda-graph-impl local"):
        assert "te-rng-tracker-required" not in rules(flags)


def test_expandable_segments_env():
    text = "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: true\n"
    assert "expandable-segments-nccl-register" in rules(text, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    assert "expandable-segments-nccl-register" not in rules(
        text, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "NCCL_GRAPH_REGISTER": "0"})


def test_bridge_packing_rules():
    text = ("model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: true\n"
            "dataset:\n  enable_offline_packing: true\n  offline_packing_specs:\n    pad_cu_seqlens: false\n")
    found = rules(text)
    assert {"packed-seq-pad-to-max-length", "packed-seq-pad-cu-seqlens"} <= set(found)


def test_inference_rules():
    assert "inference-scope-impl" in rules("model.cuda_graph_impl=transformer_engine model.inference_cuda_graph_scope=block")
    f = rules("model.cuda_graph_impl=local model.cuda_graph_modules=[full_iteration_inference]")["full-iteration-inference-migration"]
    assert f.fix["model.inference_cuda_graph_scope"] == "block"
    assert "era-key-unknown" in rules("model.cuda_graph_impl=local model.inference_cuda_graph_scope=block", OLD)


def test_delay_wgrad_rules():
    text = ("model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n  delay_wgrad_compute: true\n"
            "  gradient_accumulation_fusion: false\n  add_bias_linear: true\n")
    assert {"delay-wgrad-grad-accum-fusion", "delay-wgrad-attn-bias"} <= set(rules(text))


def test_inference_rng_tracker_satisfies_local_graphs_for_a_bare_model_config():
    base = "model:\n  cuda_graph_impl: local\n  inference_cuda_graph_scope: block\n"
    assert "te-rng-tracker-required" in rules(base)
    assert "te-rng-tracker-required" not in rules(base + "  inference_rng_tracker: true\n")
    # Bridge's GPTModelProvider asserts the TE tracker whatever the use: still an error there
    bridge = base + "  inference_rng_tracker: true\nrng:\n  seed: 1\n"
    assert rules(bridge)["te-rng-tracker-required"].severity == "error"


@pytest.mark.legacy
def test_optimizer_graph_needs_0_17_and_a_capturable_baseline():
    yaml_text = "optimizer:\n  optimizer_cuda_graph: true\n"
    old = rules(yaml_text, OLD)["optimizer-graph-version"]
    assert old.severity == "error" and "0.17" in old.message and old.fix == {"optimizer.optimizer_cuda_graph": "<remove>"}
    assert "optimizer-graph-parity-baseline" not in rules(yaml_text, OLD)
    for era, text in ((era_for("0.17.0"), yaml_text), (CUR, "--optimizer-cuda-graph --cuda-graph-impl full_iteration")):
        found = rules(text, era)
        assert "optimizer-graph-version" not in found
        assert found["optimizer-graph-parity-baseline"].severity == "info"
        assert "capturable" in found["optimizer-graph-parity-baseline"].message
    assert not {"optimizer-graph-version", "optimizer-graph-parity-baseline"} & set(
        rules("optimizer:\n  optimizer_cuda_graph: false\n"))
