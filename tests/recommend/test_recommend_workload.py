"""recommend reads what a config runs from every place it says so (model kind, task, entry point)
and backs each choice with evidence; shapes taken from NVIDIA's shipped configs."""

import pytest

from skill_tools.config.era import era_for
from skill_tools.config.readers import read_text
from skill_tools.recommend import recommend
from skill_tools.rules import workload
from skill_tools.rules.engine import model_view

CUR, OLD = era_for("0.19.2"), era_for("0.16.1")


@pytest.mark.parametrize("text,fmt,impl,scope", [
    # a Megatron-LM inference launch (entry point) and an RL launch: the engine uses local graphs
    ("python examples/inference/gpt/gpt_dynamic_inference.py --num-layers 2 --enable-cuda-graph "
     "--inference-dynamic-batching-buffer-size-gb 20\n", "megatron_lm", "local", []),
    ("python train_rl.py --num-layers 2 --cuda-graph-impl local --perform-rl-step --grpo-group-size 2\n",
     "megatron_lm", "local", []),
    # a hybrid Mamba launch: mamba is graphable
    ("python pretrain_mamba.py --num-layers 4 --hybrid-override-pattern M*M- --cuda-graph-impl transformer_engine\n",
     "megatron_lm", "transformer_engine", ["attn", "mamba"]),
    ("python pretrain_mamba.py --num-layers 4 --hybrid-override-pattern MEM* --num-experts 8\n",
     "megatron_lm", "transformer_engine", ["attn", "mamba", "moe_router", "moe_preprocess"]),
    # run_script.py lines name the model: -ep 16 means MoE, nemotronh is a hybrid, --task peft finetunes
    ("python scripts/performance/run_script.py -m deepseek -mr deepseek_v3 -g gb200 -ng 256 -vp 5 -et 8 -ep 16\n",
     "run_script", "transformer_engine", ["moe_router", "moe_preprocess"]),
    ("python scripts/performance/run_script.py -m nemotronh -mr nemotronh_56b -g gb200 -ng 64\n",
     "run_script", "transformer_engine", ["attn", "mamba"]),
    ("python scripts/performance/run_script.py -m llama -mr llama3_70b -g gb200 --task peft -ng 8\n",
     "run_script", "transformer_engine", ["mlp"]),
    ("python scripts/performance/run_script.py -m llama -mr llama3_8b -g gb200 --task pretrain -ng 8\n",
     "run_script", "full_iteration", []),
])
def test_workload_decides(text, fmt, impl, scope):
    rec = recommend(read_text(text, fmt=fmt), CUR)
    assert (rec.impl, rec.scope) == (impl, scope), rec.reason
    assert rec.ok and rec.evidence, rec.to_dict()


def test_fp8_inference_falls_back_to_layer_scope():
    """fp8 with block scope needs the inference-optimized spec and mxfp8 (rule inference-block-fp8):
    NVIDIA's fp8 inference tests run local graphs per layer."""
    text = ("python examples/inference/gpt/gpt_dynamic_inference.py --num-layers 2 --fp8-format hybrid "
            "--fp8-recipe tensorwise --enable-cuda-graph --transformer-impl transformer_engine\n")
    rec = recommend(read_text(text, fmt="megatron_lm"), CUR)
    assert rec.impl == "local" and rec.ok
    assert rec.inference_scope in ("block", "layer")


def test_dense_pretraining_falls_back_when_full_iteration_is_refused():
    """Dropless MoE is not this path; a dense config whose full iteration is refused gets TE scopes."""
    rec = recommend(read_text("model:\n  num_layers: 2\n  attention_dropout: 0.0\n"), OLD)
    assert rec.impl in ("full_iteration", "transformer_engine")
    assert any("measured" in e or "NVIDIA" in e for e in rec.evidence)


def test_workload_evidence_names_its_source():
    cfg = read_text("python scripts/performance/run_script.py -m qwen -mr qwen3_30b_a3b -g h100 -ng 16\n",
                    fmt="run_script")
    work = workload.read(cfg, model_view(cfg))
    assert work.moe and not work.hybrid and work.task == "pretrain"
    assert "a3b" in work.evidence["moe"]


def test_a_defined_dense_model_is_not_moe_by_name():
    """num_moe_experts said explicitly wins over a model name."""
    cfg = read_text("model:\n  num_moe_experts: null\nmeta:\n  model_recipe_name: deepseek_like_dense\n")
    assert not workload.read(cfg, model_view(cfg)).moe
