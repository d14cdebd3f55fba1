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


def _resolved(node: ast.AST, tree: ast.AST, call: ast.Call, depth: int = 0) -> list[str] | None:
    """The module list an argument stands for: a literal, or a name bound to one before the call
    (``modules = (["attn"] if with_attn else []) + BASE_MODULES``), a conditional read at its flag's
    default (a parameter ``with_attn: bool = False``), lists joined with ``+``. None: not knowable."""
    if depth > 8:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _resolved(node.left, tree, call, depth + 1), _resolved(node.right, tree, call, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.IfExp):
        flag = _default(node.test, tree, call)
        return None if flag is None else _resolved(node.body if flag else node.orelse, tree, call, depth + 1)
    if isinstance(node, ast.Name):
        bound = [a.value for a in ast.walk(tree) if isinstance(a, ast.Assign) and a.lineno < call.lineno
                 and any(isinstance(t, ast.Name) and t.id == node.id for t in a.targets)]
        return _resolved(bound[-1], tree, call, depth + 1) if bound else None
    return _module_list(node)


def _default(test: ast.AST, tree: ast.AST, call: ast.Call) -> bool | None:
    """A flag's truth where nothing overrides it: a parameter's constant default, in the function that holds the call."""
    if not isinstance(test, ast.Name):
        return None
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.lineno <= call.lineno <= (fn.end_lineno or 0):
            args = fn.args.args[len(fn.args.args) - len(fn.args.defaults):] + fn.args.kwonlyargs
            defaults = fn.args.defaults + list(fn.args.kw_defaults)
            for arg, value in zip(args, defaults):
                if arg.arg == test.id and isinstance(value, ast.Constant):
                    return bool(value.value)
    return None


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
        names = _resolved(node.args[1], tree, node)
        if func != _HELPER or not on_model or names is None:
            continue
        shown = "[" + ",".join(names) + "]"
        line = block.line + node.lineno - 1
        for era, text in (("current", f"model.cuda_graph_modules={shown}\nmodel.cuda_graph_scope=null"),
                          ("legacy", f"model.cuda_graph_scope={shown}")):
            out.append(replace(block, kind="hydra", text=text, line=line, era=era, keys=[], cfg=None, error=None,
                               diff_new=[], why=block.why or f"what Bridge's {_HELPER}() writes on that era"))
    return out
