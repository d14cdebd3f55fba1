"""Literal values out of upstream Python source, without running it.

``value(node, names)`` turns an AST expression into a plain value: constants, lists, tuples, dicts,
enum members (``CudaGraphScope.attn`` -> ``"attn"``), dtypes (``torch.bfloat16`` -> ``"bfloat16"``),
negative numbers and names bound in ``names`` (test parameters, module constants). Anything else
raises :class:`Unresolved` naming what could not be read, so a caller lists the case instead of
guessing.
"""

from __future__ import annotations

import ast
from typing import Any

#: Enum classes whose members stand for their names in a config.
ENUMS = {"CudaGraphScope", "CudaGraphModule", "InferenceCudaGraphScope", "AttnBackend", "AttnMaskType",
         "CudaGraphImpl", "ModelType"}


class Unresolved(Exception):
    """An expression the harvester cannot read as a literal."""


def value(node: ast.AST, names: dict[str, Any] | None = None) -> Any:
    names = names or {}
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [value(e, names) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Unresolved("**mapping in a dict literal")
        out = {}
        for k, v in zip(node.keys, node.values):
            key = value(k, names)
            if not isinstance(key, (str, int, float, bool)):
                raise Unresolved(f"dict key {ast.unparse(k)[:40]}")
            out[key] = value(v, names)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = value(node.operand, names)
        if isinstance(v, (int, float)):
            return -v
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise Unresolved(f"name {node.id}")
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id in ENUMS:
            return node.attr
        if node.value.id == "torch":
            return node.attr
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.attr == "name":
        return value(node.value, names)  # CudaGraphScope.attn.name
    raise Unresolved(ast.unparse(node)[:80])


def call_name(node: ast.AST) -> str | None:
    """``a.b.C(...)`` -> ``"C"``; ``f(...)`` -> ``"f"``."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def chain(node: ast.AST) -> list[str] | None:
    """``a.b.c`` -> ``["a", "b", "c"]`` (None for anything but names and attributes)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None
