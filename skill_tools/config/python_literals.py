"""Literal values of Python expressions, read with :mod:`ast` and never run: the values a config
snippet binds (``KEY = "cuda_graph_modules"``, ``list(GRAPH_MODULES)``, ``CudaGraphScope.attn``) and
the names bound once to such a value, which later lines use in its place."""

from __future__ import annotations

import ast
from typing import Any


def constants(tree: ast.AST) -> dict[str, Any]:
    """Names bound once in the whole snippet to a literal and never changed in place (``KEY =
    "cuda_graph_modules"``, ``OVERRIDES = {…}``, a function's ``modules = ["moe_router", …]``, a
    parameter's literal default, the value the recipe runs with when called as written)."""
    seen: dict[str, int] = {}
    out: dict[str, Any] = {}

    def bind(name: str, value: ast.AST | None) -> None:  # None: rebound to a value not known here
        ok, v = literal(value) if value is not None else (False, None)
        seen[name] = seen.get(name, 0) + (1 if ok else 2)
        out.update({name: v} if ok else {})

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bind(node.targets[0].id, node.value)
        elif isinstance(node, ast.arguments):  # a parameter: the caller's value, or its literal default
            params = node.posonlyargs + node.args
            defaults = dict(zip([a.arg for a in params[len(params) - len(node.defaults):]], node.defaults))
            defaults.update({a.arg: d for a, d in zip(node.kwonlyargs, node.kw_defaults) if d is not None})
            for a in params + node.kwonlyargs + [x for x in (node.vararg, node.kwarg) if x]:
                bind(a.arg, defaults.get(a.arg))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(node.target, ast.Name):
            bind(node.target.id, None)  # rebound, or a loop variable
        elif isinstance(node, ast.Attribute) and node.attr in _MUTATORS and isinstance(node.value, ast.Name):
            bind(node.value.id, None)  # a list changed in place
    return {k: v for k, v in out.items() if seen[k] == 1}


_MUTATORS = {"append", "extend", "insert", "remove", "pop", "update", "clear", "setdefault", "add", "discard"}


def attr_chain(node: ast.AST) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def literal(node: ast.AST, names: dict[str, Any] | None = None) -> tuple[bool, Any]:
    """Literal value of an expression; enum attributes (``CudaGraphScope.attn``) read as names, and
    a name bound once to a literal (``names``, :func:`constants`) as its value."""
    if isinstance(node, ast.Name) and names and node.id in names:
        return True, names[node.id]
    if isinstance(node, ast.Attribute):
        chain = attr_chain(node)
        return (True, chain[-1]) if chain and len(chain) >= 2 else (False, None)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
            and len(node.args) == 1 and not node.keywords:  # list(GRAPH_MODULES): a copy of a literal list
        ok, v = literal(node.args[0], names)
        return (True, list(v)) if ok and isinstance(v, (list, tuple)) else (False, None)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = []
        for elt in node.elts:
            ok, v = literal(elt, names)
            if not ok:
                return False, None
            out.append(v)
        return True, out
    if isinstance(node, ast.Dict):
        out_d = {}
        for k, v in zip(node.keys, node.values):
            ok_k, kv = literal(k, names) if k is not None else (False, None)
            ok_v, vv = literal(v, names)
            if not (ok_k and ok_v) or isinstance(kv, (list, dict, set)):
                return False, None  # {[1]: 2} is no literal Python accepts (an unhashable key)
            out_d[kv] = vv
        return True, out_d
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
