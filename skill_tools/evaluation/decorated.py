"""What a decorator configures, bound to the function it decorates: the meta-parameters
``@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": b}, …)])`` tunes for one kernel, and the
keywords a launch of that same kernel passes (``kernel[grid](…, BLOCK_SIZE=…)``). A rule that
compares the two must not mix two kernels of one program (a row kernel launched with its
BLOCK_SIZE beside a looped kernel that autotunes its own). Read with ``ast``; nothing is run.
"""

from __future__ import annotations

import ast
from typing import Any

#: Path of a launch keyword its kernel's own autotune configs also set, and of the fact that every
#: autotuned kernel's configs were resolved (so a rule may trust the per-kernel binding).
AUTOTUNED_AT_LAUNCH = "py:{kernel}[].{key}@autotuned"
RESOLVED = "py:autotune-resolved"


def _config_keys(node: ast.AST, defs: dict[str, ast.AST], depth: int = 0) -> set[str] | None:
    """The string keys of the ``Config({...})`` dicts under ``node``, following a call to, or a name
    of, a module-level function or list once; None when a part cannot be followed."""
    keys: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and getattr(sub.func, "attr", getattr(sub.func, "id", None)) == "Config":
            first = sub.args[0] if sub.args else next((k.value for k in sub.keywords if k.arg == "kwargs"), None)
            if isinstance(first, ast.Dict):
                keys |= {k.value for k in first.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            elif first is not None:
                return None
        elif isinstance(sub, (ast.Call, ast.Name)) and depth == 0:
            name = sub.func.id if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) else \
                sub.id if isinstance(sub, ast.Name) else None
            if name in defs:
                inner = _config_keys(defs[name], defs, depth + 1)
                if inner is None:
                    return None
                keys |= inner
    return keys


def autotune_bindings(tree: ast.AST) -> dict[str, Any]:
    """``{AUTOTUNED_AT_LAUNCH: True, …, RESOLVED: True}`` for ``tree`` (empty without autotune)."""
    defs: dict[str, ast.AST] = {}
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            defs[node.targets[0].id] = node.value
    tuned: dict[str, set[str]] = {}
    resolved = True
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            if isinstance(dec, ast.Call) and getattr(dec.func, "attr", getattr(dec.func, "id", None)) == "autotune":
                configs = next((k.value for k in dec.keywords if k.arg == "configs"), dec.args[0] if dec.args else None)
                local = isinstance(configs, (ast.List, ast.ListComp)) or \
                    (isinstance(configs, ast.Name) and configs.id in defs) or \
                    (isinstance(configs, ast.Call) and isinstance(configs.func, ast.Name) and configs.func.id in defs)
                keys = _config_keys(configs, defs) if local else None  # imported configs: not followed
                resolved = resolved and keys is not None
                tuned[node.name] = keys or set()
    if not tuned:
        return {}
    out: dict[str, Any] = {RESOLVED: True} if resolved else {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and isinstance(node.func.value, ast.Name):
            kernel = node.func.value.id
            for kw in node.keywords:
                if kw.arg and kw.arg in tuned.get(kernel, ()):
                    out[AUTOTUNED_AT_LAUNCH.format(kernel=kernel, key=kw.arg)] = True
    return out
