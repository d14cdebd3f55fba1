"""Megatron Bridge's own CUDA-graph helper, called in an answer's code, read as the settings it writes.

``megatron.bridge.utils.cuda_graph.set_cuda_graph_modules(cfg.model, ["moe_router", "moe_preprocess"])``
(Bridge v0.6.0 ``src/megatron/bridge/utils/cuda_graph.py``) writes ``cuda_graph_modules`` and clears
``cuda_graph_scope`` where the installed megatron-core has the 0.18+ field, and writes
``cuda_graph_scope`` on 0.16-0.17. The call is read (``ast``, never run) into one block per era, so
the task's era picks what the helper would have written there.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from skill_tools.config import pysource
from skill_tools.evaluation.fragments import Block

_HELPER = "set_cuda_graph_modules"


def _module_list(node: ast.AST) -> list[str] | None:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    names = []
    for elt in node.elts:
        if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
            names.append(elt.value)
        elif isinstance(elt, ast.Attribute):  # CudaGraphModule.attn
            names.append(elt.attr)
        else:
            return None
    return names


def helper_blocks(block: Block) -> list[Block]:
    """A current-era and a legacy-era block for each ``set_cuda_graph_modules(<x>.model, [...])`` call."""
    if block.kind != "python" or _HELPER not in block.text:
        return []
    try:
        tree = pysource.parse(block.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and len(node.args) == 2):
            continue
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        target = node.args[0]
        on_model = (isinstance(target, ast.Attribute) and target.attr == "model") or \
            (isinstance(target, ast.Name) and target.id in ("model", "model_cfg", "provider"))
        names = _module_list(node.args[1])
        if func != _HELPER or not on_model or names is None:
            continue
        shown = "[" + ",".join(names) + "]"
        line = block.line + node.lineno - 1
        for era, text in (("current", f"model.cuda_graph_modules={shown}\nmodel.cuda_graph_scope=null"),
                          ("legacy", f"model.cuda_graph_scope={shown}")):
            out.append(replace(block, kind="hydra", text=text, line=line, era=era, keys=[], cfg=None, error=None,
                               diff_new=[], why=block.why or f"what Bridge's {_HELPER}() writes on that era"))
    return out
