"""Rules for the model class megatron-core's inference path cannot run (GDN layers, an fp32 residual
stream into bf16 layers), read from the source and, for the local spec, reproduced on CPU."""

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.rules.engine import check

CUR, OLD = era_for("0.19.2"), era_for("0.16.1")
GDN, FP32 = "inference-gdn-layers", "fp32-residual-dtype-mismatch"


def rules(text, era=CUR):
    return {f.rule: f for f in check(read_text(text), era)}


@pytest.mark.parametrize("text", [
    "--hybrid-layer-pattern M*G*E --cuda-graph-impl local --inference-cuda-graph-scope block",
    "--hybrid-override-pattern MG*- --inference-dynamic-batching-num-cuda-graphs -1",
    "model:\n  experimental_attention_variant: gated_delta_net\n  linear_attention_freq: 2\n"
    "  cuda_graph_impl: local\n  inference_cuda_graph_scope: layer\n",
])
def test_gdn_layers_served_for_inference_are_refused(text):
    f = rules(text)[GDN]
    assert f.severity == "error" and "GDN does not currently support dynamic inference batching." in f.message


@pytest.mark.parametrize("text", [
    "--hybrid-layer-pattern M*G*E --cuda-graph-impl local",  # training with local graphs: GDN trains fine
    "--hybrid-layer-pattern M*M*E --cuda-graph-impl local --inference-cuda-graph-scope block",  # no G
    "--hybrid-layer-pattern M*G*E --cuda-graph-impl local --inference-cuda-graph-scope none",
])
def test_gdn_rule_stays_quiet_without_gdn_or_without_inference(text):
    assert GDN not in rules(text)


def test_the_gdn_messages_are_megatron_cores_own():
    """The message quotes the strings GatedDeltaNet.forward raises in the installed megatron-core."""
    import importlib.util
    import pathlib

    pytest.importorskip("megatron.core")
    root = pathlib.Path(importlib.util.find_spec("megatron.core").submodule_search_locations[0])
    src = next((p for p in (root / "ssm/gated_delta_net/gdn.py", root / "ssm/gated_delta_net.py") if p.exists()))
    text = src.read_text()
    f = rules("--hybrid-layer-pattern G* --inference-cuda-graph-scope block --cuda-graph-impl local")[GDN]
    for quoted in ("GDN does not currently support dynamic inference batching.", "GDN does not support inference for now."):
        assert quoted in text and quoted in f.message


@pytest.mark.parametrize("text, spec, needle", [
    ("--fp32-residual-connection --bf16 --cuda-graph-impl local --inference-cuda-graph-scope block",
     "transformer_engine", "Data types for parameters must match"),
    ("--fp32-residual-connection --bf16 --transformer-impl local --cuda-graph-impl local --inference-cuda-graph-scope block",
     "local", "expected m1 and m2 to have the same dtype"),
    ("model:\n  fp32_residual_connection: true\n  cuda_graph_impl: local\n  inference_cuda_graph_scope: block\n"
     "mixed_precision: bf16_mixed\n", "transformer_engine", "Data types for parameters must match"),
    ("--fp32-residual-connection --bf16 --cuda-graph-impl transformer_engine --cuda-graph-modules attn",
     "transformer_engine", "Data types for parameters must match"),
])
def test_fp32_residual_into_bf16_layers_is_refused(text, spec, needle):
    f = rules(text)[FP32]
    assert f.severity == "error" and f"on the {spec} spec" in f.message and needle in f.message
    assert f.fix == {"model.fp32_residual_connection": False}


@pytest.mark.legacy
def test_fp32_residual_rule_covers_016():
    assert FP32 in rules("--fp32-residual-connection --bf16 --transformer-impl local --cuda-graph-impl local", OLD)


@pytest.mark.parametrize("text", [
    "--fp32-residual-connection --cuda-graph-impl local --inference-cuda-graph-scope block",  # fp32 weights
    "--bf16 --cuda-graph-impl local --inference-cuda-graph-scope block",  # bf16 residual
    "model:\n  fp32_residual_connection: true\n  bf16: true\n  enable_autocast: true\n"
    "  cuda_graph_impl: transformer_engine\n  cuda_graph_modules: [attn]\n",  # training under torch.autocast
    "--fp32-residual-connection --bf16",  # no graphs, no inference: not this catalog's business
])
def test_fp32_residual_rule_stays_quiet_where_dtypes_agree(text):
    assert FP32 not in rules(text)


def test_fp32_residual_rule_is_gated_to_the_versions_without_the_cast():
    text = "--fp32-residual-connection --bf16 --cuda-graph-impl local --inference-cuda-graph-scope block"
    assert FP32 not in rules(text, era_for("0.20.0"))
