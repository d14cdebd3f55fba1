"""Imports point down the layers, and only GPU-worker modules load torch/megatron/TE on import.

Layers (DEVELOPERS' layering): the config model and era mapping at the bottom; rules and log
parsing on it; overrides and the GPU harness above; evals, recommend and the card above those;
the CLI only wires.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "skill_tools"

LAYERS: dict[str, int] = {
    "skill_tools": 0, "skill_tools.errors": 0, "skill_tools.stats": 0, "skill_tools.output_file": 0,
    "skill_tools.numbers": 0,
    "skill_tools.input_file": 0,
    "skill_tools.config": 1,
    "skill_tools.rules": 2, "skill_tools.logs": 2,
    "skill_tools.overrides": 3, "skill_tools.harness": 3,
    "skill_tools.recommend": 4, "skill_tools.evaluation": 4, "skill_tools.api": 4, "skill_tools.plan": 4,
    # the skill package itself (SKILL.md, card, BENCHMARK.md, lint) reads everything below it
    "skill_tools.package": 4, "skill_tools.package.skill_md": 1,
    "skill_tools.commands": 5, "skill_tools.cli": 5, "skill_tools.__main__": 5,
}
#: Run inside the GPU subprocess: the only modules that may import torch at module level.
GPU_SIDE = {"skill_tools.harness.graph_counter", "skill_tools.harness.gpu_profile",
            "skill_tools.harness.engines.observe", "skill_tools.harness.inference.worker",
            "skill_tools.harness.inference.attention", "skill_tools.harness.inference.engine_setup",
            "skill_tools.harness.engines.proxy.model", "skill_tools.harness.engines.proxy.setup"}
GPU_SIDE |= {f"skill_tools.harness.engines.{e.name}.{m}" for e in (PKG / "harness" / "engines").iterdir()
             if e.is_dir() and (e / "gpu.py").exists() for m in ("gpu", "__main__")}
HEAVY = ("torch", "megatron", "transformer_engine")


def _module(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _group(module: str) -> str:
    """The longest prefix of ``module`` that :data:`LAYERS` names."""
    parts = module.split(".")
    return next(".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in LAYERS)


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


FILES = sorted(PKG.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_point_down(path):
    module = _module(path)
    layer = LAYERS[_group(module)]
    up = sorted(d for d in _imports(path) if d.startswith("skill_tools")
                and d != "skill_tools" and LAYERS[_group(d)] > layer)
    assert not up, f"{module} (layer {layer}) imports higher layers: {up}"


HARNESS = sorted(_module(p) for p in (PKG / "harness").rglob("*.py"))
CLI_SIDE = [m for m in HARNESS if m not in GPU_SIDE]


def _module_level_imports(path: Path) -> set[str]:
    out = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_only_the_gpu_side_imports_gpu_stacks_at_module_level(path):
    if _module(path) in GPU_SIDE:
        return
    heavy = sorted(d for d in _module_level_imports(path) if d.split(".")[0] in HEAVY)
    assert not heavy, f"{_module(path)} is not a GPU-side module but imports {heavy} at module level"


@pytest.mark.parametrize("module", CLI_SIDE + ["skill_tools.cli", "skill_tools.package.card", "skill_tools.evaluation.score"])
def test_cli_side_modules_import_without_gpu_stacks(module):
    code = (f"import sys, {module}; heavy = [m for m in ('torch', 'megatron', 'transformer_engine') "
            "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
