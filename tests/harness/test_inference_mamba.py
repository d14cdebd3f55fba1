"""The Mamba hybrid inference workload on CPU: what it is, its refusal before any GPU process when
the kernels are missing (naming the packages and how to build them), the batch-invariant set-up with
the PyTorch attention fallback, and the sm_90 patch the kernel build script applies to setup.py."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skill_tools.harness.inference import workloads as IW

REPO = Path(__file__).resolve().parents[2]
FULL = {"transformer-engine": "2.20.2", "einops": "0.8.2", "causal-conv1d": "1.6.2.post1",
        "mamba-ssm": "2.2.6.post3", "megatron-core": "0.19.2"}


def _have(versions):
    return lambda module, dist: versions.get(dist)


def test_the_mamba_hybrid_that_0_19_can_serve():
    w = IW.WORKLOADS["tiny-mamba-hybrid"]
    assert {"M", "*", "E"} <= set(w.pattern) and w.config["moe_shared_expert_intermediate_size"]
    assert not w.config.get("fp32_residual_connection") and w.restore_expert_bias
    assert IW.unavailable(w, _have(FULL)) == []
    # the fp32-residual variant of the same layers stays refused on 0.19 (attention's fused norm)
    assert any("7a76dff" in r for r in IW.unavailable(IW.WORKLOADS["tiny-hybrid"], _have(FULL)))


@pytest.mark.parametrize("gap, named", [({"mamba-ssm": None}, "mamba-ssm"),
                                        ({"causal-conv1d": None, "mamba-ssm": None}, "mamba-ssm and causal-conv1d"),
                                        ({"causal-conv1d": "1.4.0"}, "causal-conv1d")])
def test_missing_or_old_kernels_come_with_how_to_build_them(gap, named):
    have = _have({**FULL, **gap})
    (hint,) = IW.how_to_get(IW.WORKLOADS["tiny-mamba-hybrid"], have)
    assert hint.startswith(named + ":")
    assert "MAMBA_FORCE_BUILD=TRUE" in hint and "benchmarks/build-mamba-kernels.sh" in hint
    assert (REPO / "benchmarks" / "build-mamba-kernels.sh").exists()
    assert IW.how_to_get(IW.WORKLOADS["tiny-mamba-hybrid"], _have(FULL)) == []
    assert IW.how_to_get(IW.WORKLOADS["tiny-hybrid-moe"], have) == []  # no Mamba layer, nothing to build


def test_the_cli_refuses_before_any_gpu_process(tmp_path):
    """On a machine without the kernels (this one), `bench --mode inference` writes the refusal and starts
    no worker: no log folder appears, and the answer names each package and how to build it."""
    reasons = IW.unavailable(IW.WORKLOADS["tiny-mamba-hybrid"])
    if not any("mamba-ssm" in r or "causal-conv1d" in r for r in reasons):
        pytest.skip("the Mamba kernels are installed here")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "skill_tools", "bench", "--mode", "inference", "--workload",
                           "tiny-mamba-hybrid", "--out", str(tmp_path), "--json"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    answer = json.loads(proc.stdout)
    assert answer["status"] == "unavailable"
    assert any("mamba-ssm" in r and "2.2.6.post3" in r for r in answer["unavailable"])
    assert any("build-mamba-kernels.sh" in h for h in answer["how_to_fix"])
    doc = json.loads(Path(answer["artifacts"]["json"]).read_text())
    assert doc["how_to_fix"] == answer["how_to_fix"] and not (tmp_path / "logs").exists()


def test_batch_invariance_leaves_attention_alone_without_fa3_or_fa4(monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("megatron.core")
    import megatron.core.transformer.attention as attention

    from skill_tools.harness.inference import engine_setup as ES

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.config = type("Config", (), {"batch_invariant_mode": False})()
            self.attn = attention.SelfAttention.__new__(attention.SelfAttention)  # a concrete Attention
            torch.nn.Module.__init__(self.attn)
            self.attn.batch_invariant_mode = False

    monkeypatch.setattr(attention, "HAVE_FA3", False)
    monkeypatch.setattr(attention, "HAVE_FA4", False)
    model = Model()
    assert "attention flag off" in ES.enable_batch_invariance(model)
    assert model.config.batch_invariant_mode and not model.attn.batch_invariant_mode  # no FA2 assert
    monkeypatch.setattr(attention, "HAVE_FA3", True)
    assert "flag on" in ES.enable_batch_invariance(model) and model.attn.batch_invariant_mode


def _setup_patch() -> str:
    """The Python that build-mamba-kernels.sh feeds to each setup.py (its heredoc)."""
    text = (REPO / "benchmarks" / "build-mamba-kernels.sh").read_text()
    return re.search(r"<<'PYEOF' \|\| return 1\n(.*?)\nPYEOF\n", text, re.S).group(1)


def test_the_build_script_leaves_one_target_in_setup_py(tmp_path):
    setup = tmp_path / "setup.py"
    setup.write_text(
        "import os\nif True:\n    cc_flag = []\n    cc_flag.append('-gencode')\n    cc_flag.append('arch=compute_75,code=sm_75')\n"
        "    # HACK: The compiler flag -D_GLIBCXX_USE_CXX11_ABI is set to be the same as\n"
        "    nvcc = ['-O3', \"-lineinfo\", '-std=c++17'] + cc_flag\n")
    patch = tmp_path / "patch.py"
    patch.write_text(_setup_patch())
    env = {**os.environ, "GENCODE": "arch=compute_90,code=sm_90"}
    subprocess.run([sys.executable, str(patch), str(setup)], check=True, env=env, capture_output=True)
    ast.parse(setup.read_text())  # still Python
    setup.write_text(setup.read_text() + "import json\nprint(json.dumps(nvcc))\n")
    out = subprocess.run([sys.executable, str(setup)], check=True, capture_output=True, text=True).stdout
    assert json.loads(out) == ["-O3", "-std=c++17", "-gencode", "arch=compute_90,code=sm_90"]
