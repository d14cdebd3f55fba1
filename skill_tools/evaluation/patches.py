"""Runtime patches of library internals in an answer's Python: assigning a private attribute of an
imported Megatron / Transformer Engine / torch module (``tensor_parallel.random._CUDA_RNG_STATE_TRACKER
= ...``), replacing a method of one of their classes (``random.CudaRNGStatesTracker.add = f``), or subclassing one of their classes to override a safety check (``def is_graph_safe(self):
return True``). Such code changes what the validator and the oracle see no trace of, so a config
that comes with it is not the config the user would run. Parsed with ``ast``; nothing is run.
"""

from __future__ import annotations

import ast

from skill_tools.config import pysource

_UPSTREAM = ("megatron", "transformer_engine", "torch", "apex")


def internal_patches(texts: list[str]) -> list[str]:
    """What the code patches (``module._private = …``, ``Subclass(te.X).method``), at most 5. The
    snippets are one program: an import in the first is seen by an assignment in the next."""
    trees = []
    for text in texts:
        try:
            trees.append(pysource.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    tree = ast.Module(body=[n for t in trees for n in t.body], type_ignores=[])
    upstream: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            upstream |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith(_UPSTREAM)}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(_UPSTREAM):
            upstream |= {a.asname or a.name for a in node.names}
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Attribute) and _rooted(target, upstream) and \
                        (target.attr.startswith("_") or not target.attr.islower() or _through_class(target)):
                    out.append(ast.unparse(target)[:120])
        elif isinstance(node, ast.ClassDef) and any(_rooted(b, upstream) for b in node.bases):
            out += [f"{node.name}.{f.name} (overrides {ast.unparse(node.bases[0])[:60]})" for f in node.body
                    if isinstance(f, ast.FunctionDef) and not f.name.startswith("__")]
    return out[:5]


def _rooted(node: ast.AST, names: set[str]) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in names


def _through_class(node: ast.Attribute) -> bool:
    """``module.CudaRNGStatesTracker.add = f``: a method of an upstream class replaced (monkeypatching)."""
    value = node.value
    while isinstance(value, ast.Attribute):
        if value.attr[:1].isupper() and not value.attr.isupper():
            return True
        value = value.value
    return isinstance(value, ast.Name) and value.id[:1].isupper() and not value.id.isupper()
