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

PKG = Path(__file__).resolve().parent.parent / "skill_tools"

LAYERS: dict[str, int] = {
    "skill_tools": 0, "skill_tools.errors": 0, "skill_tools.stats": 0, "skill_tools.output_file": 0,
    "skill_tools.input_file": 0,
    "skill_tools.config": 1,
    "skill_tools.rules": 2, "skill_tools.logs": 2,
    "skill_tools.overrides": 3, "skill_tools.harness": 3,
    "skill_tools.recommend": 4, "skill_tools.evaluation": 4, "skill_tools.card": 4, "skill_tools.api": 4,
    "skill_tools.card_results": 4, "skill_tools.card_compact": 4, "skill_tools.benchmark_md": 4,
    "skill_tools.skill_card": 4, "skill_tools.skill_md": 1, "skill_tools.plugin_manifest": 4,
    "skill_tools.package_lint": 4, "skill_tools.catalog_lint": 4,
    "skill_tools.commands": 5, "skill_tools.cli": 5, "skill_tools.__main__": 5,
}
#: Run inside the GPU subprocess: the only modules that may import torch at module level.
WORKER_SIDE = {"worker", "inference_worker", "graph_counter", "training_setup", "proxy", "gpu_profile"}


def _module(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _group(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


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


CLI_SIDE = sorted(f"skill_tools.harness.{p.stem}" for p in (PKG / "harness").glob("*.py")
                  if p.stem not in WORKER_SIDE | {"__init__"})


@pytest.mark.parametrize("module", CLI_SIDE + ["skill_tools.cli", "skill_tools.card", "skill_tools.evaluation.score"])
def test_cli_side_modules_import_without_gpu_stacks(module):
    code = (f"import sys, {module}; heavy = [m for m in ('torch', 'megatron', 'transformer_engine') "
            "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
