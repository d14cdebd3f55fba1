"""Inference workloads beyond the dense GPT, CPU side: configs megatron-core accepts, refusals that
name the missing package and the megatron-core line, and the worker's 'cannot build' path."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from skill_tools.config.era import era_for
from skill_tools.harness.inference import workloads as IW

torch = pytest.importorskip("torch")
pytest.importorskip("megatron.core")


@pytest.mark.parametrize("name", sorted(IW.WORKLOADS))
@pytest.mark.parametrize("graphed", [False, True])
def test_every_workload_is_a_config_megatron_core_accepts(name, graphed):
    from megatron.core.transformer.transformer_config import TransformerConfig

    w = IW.WORKLOADS[name]
    cfg = TransformerConfig(params_dtype=torch.bfloat16, pipeline_dtype=torch.bfloat16, bf16=True,
                            cuda_graph_impl="local" if graphed else "none",
                            inference_cuda_graph_scope="block" if graphed else "none",
                            inference_rng_tracker=True, **IW.config_kwargs(w, graphed, graphed))
    if w.config.get("fp32_residual_connection"):
        assert cfg.pipeline_dtype == torch.float32  # transformer_config.py overrides it for the fp32 stream
    if w.moe:
        assert cfg.moe_pad_experts_for_cuda_graph_inference is graphed
    if w.pattern:
        from megatron.core.models.hybrid.hybrid_layer_allocation import Symbols

        assert set(w.pattern) <= set(Symbols.name_sorted_valid_layer_symbols())
        assert len(w.pattern) == w.num_layers


def test_the_model_class_of_the_issue_is_covered():
    hybrid = IW.WORKLOADS["tiny-hybrid"]
    assert "M" in hybrid.pattern and "*" in hybrid.pattern and "E" in hybrid.pattern
    assert hybrid.config["fp32_residual_connection"] and hybrid.config["moe_shared_expert_intermediate_size"]
    assert hybrid.restore_expert_bias and IW.WORKLOADS["tiny-moe-shared"].restore_expert_bias


def _have(versions):
    return lambda module, dist: versions.get(dist)


def test_mamba_without_its_packages_names_each_package_version_and_line():
    reasons = IW.unavailable(IW.WORKLOADS["tiny-hybrid"], _have({"transformer-engine": "2.20.2", "einops": "0.8"}))
    assert len(reasons) == 2
    assert "mamba-ssm is not installed" in reasons[0] and "2.2.6.post3" in reasons[0] and "mamba_mixer.py" in reasons[0]
    assert "causal-conv1d is not installed" in reasons[1] and "1.5.3.post1" in reasons[1]


def test_old_mamba_is_refused_and_new_enough_builds():
    have = {"transformer-engine": "2.20.2", "einops": "0.8", "causal-conv1d": "1.5.3.post1"}
    old = IW.unavailable(IW.WORKLOADS["tiny-hybrid"], _have({**have, "mamba-ssm": "2.2.4"}))
    assert old == ["mamba-ssm 2.2.4 is older than 2.2.6.post3 (megatron/core/ssm/mamba_mixer.py:202,1505)"]
    assert IW.unavailable(IW.WORKLOADS["tiny-hybrid"], _have({**have, "mamba-ssm": "2.2.6.post3"})) == []
    assert IW.unavailable(IW.WORKLOADS["tiny-hybrid-moe"], _have(have)) == []  # no Mamba layer


def test_gated_delta_net_and_fp32_residual_on_the_local_spec_are_refused():
    gdn = IW.Workload("g", "hybrid", "hybrid", 2, 256, 16, 512, pattern="G*")
    reasons = IW.unavailable(gdn, _have({"transformer-engine": "2"}))
    assert any("GDN does not currently support dynamic inference batching." in r for r in reasons)
    local = IW.Workload("f", "gpt", "local", 2, 256, 8, 512, config={"fp32_residual_connection": True})
    (reason,) = IW.unavailable(local, _have({}))
    assert "expected m1 and m2 to have the same dtype" in reason and "TE spec" in reason


@pytest.mark.parametrize("name, refused", [("tiny-fp32-residual", True), ("tiny-hybrid", True),
                                           ("tiny-hybrid-moe", False), ("tiny-moe-shared", False)])
def test_fp32_residual_into_te_fused_layernorm_linear_is_refused_on_0_19(name, refused):
    """megatron-core <= 0.19 feeds the fp32 stream uncast into TELayerNormColumnParallelLinear; TE
    raises outside autocast. Mamba ('M') and MoE ('E') layers cast first; attention ('*') does not."""
    have = {"transformer-engine": "2.20.2", "einops": "0.8", "causal-conv1d": "1.5.3.post1",
            "mamba-ssm": "2.3.2.post1", "megatron-core": "0.19.2"}
    reasons = IW.unavailable(IW.WORKLOADS[name], _have(have))
    assert any("Data types for parameters must match" in r and "7a76dff" in r for r in reasons) is refused
    assert IW.unavailable(IW.WORKLOADS[name], _have({**have, "megatron-core": "0.20.0rc1"})) == []
    mamba_moe = IW.Workload("m", "hybrid", "hybrid", 2, 256, 16, 512, pattern="ME",
                            config={"fp32_residual_connection": True})
    assert IW.unavailable(mamba_moe, _have(have)) == []


def test_te_layernorm_linear_of_the_installed_megatron_core_does_not_cast_its_input():
    """The refusal rests on this source: no dtype guard before TE's forward at 0.19.x (PR #6272 adds
    `if x.dtype != self.layer_norm_weight.dtype` after core_v0.19.0)."""
    import importlib.metadata
    import importlib.util
    import pathlib

    if era_for(importlib.metadata.version("megatron-core")).has("te_norm_casts_fp32_residual"):
        pytest.skip("a newer megatron-core")
    src = pathlib.Path(importlib.util.find_spec("megatron.core").submodule_search_locations[0],
                       "extensions", "transformer_engine.py").read_text()
    body = src.split("class TELayerNormColumnParallelLinear", 1)[1].split("\n    def forward(self, x):", 1)[1]
    body = body.split("\n    def ", 1)[0]
    assert "super().forward(x" in body and "layer_norm_weight.dtype" not in body and ".to(" not in body


def test_fp32_residual_on_the_local_spec_really_fails_in_megatron_core(tmp_path):
    """The refusal above, reproduced on the code users run (CPU forward of a local-spec GPTModel)."""
    script = tmp_path / "fp32_local.py"
    script.write_text(textwrap.dedent("""
        import os, torch
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(20000 + os.getpid() % 20000), RANK="0", WORLD_SIZE="1")
        torch.distributed.init_process_group("gloo")
        from megatron.core import parallel_state
        parallel_state.initialize_model_parallel(1, 1)
        from megatron.core.transformer.transformer_config import TransformerConfig
        from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_local_spec
        from megatron.core.models.gpt.gpt_model import GPTModel
        cfg = TransformerConfig(num_layers=1, hidden_size=64, num_attention_heads=4, ffn_hidden_size=128,
                                params_dtype=torch.bfloat16, bf16=True, use_cpu_initialization=True,
                                fp32_residual_connection=True, normalization="RMSNorm", transformer_impl="local")
        m = GPTModel(config=cfg, transformer_layer_spec=get_gpt_layer_local_spec(normalization="RMSNorm"),
                     vocab_size=128, max_sequence_length=16)
        for p in m.parameters():
            p.data = p.data.to(torch.bfloat16)
        try:
            m(torch.randint(0, 128, (1, 8)), torch.arange(8)[None], None)
            print("RESULT ok")
        except RuntimeError as e:
            print("RESULT", e)
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    line = next(l for l in out.stdout.splitlines() if l.startswith("RESULT"))
    assert "expected m1 and m2 to have the same dtype" in line, out.stderr[-2000:]


def test_worker_reports_a_workload_it_cannot_build_without_touching_a_gpu(tmp_path, capsys):
    from skill_tools.harness.inference import worker as W

    if not IW.unavailable(IW.WORKLOADS["tiny-hybrid"]):
        pytest.skip("this machine can build the Mamba hybrid")
    out = tmp_path / "w.json"
    assert W.main(["--scope", "none", "--workload", "tiny-hybrid", "--batch-sizes", "1", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["unavailable"] and doc["batches"] == [] and doc["workload"]["pattern"] == "M*EM*E"
    assert "cannot be built here" in capsys.readouterr().err
