"""Which calls of a Python program run on a CUDA stream it picks: a model or its DDP wrapper built
inside ``with torch.cuda.stream(...)`` keeps that stream in its autograd nodes, the rule the
stale-capture-stream tasks judge. A stream context may be written inline, held in a variable first
(``ctx = torch.cuda.stream(s)`` then ``with ctx:``), or wrapped in a function of the program
(``with on_capture_stream():``). Parsed with :mod:`ast`, never run.
"""

from __future__ import annotations

import ast
from typing import Iterator


def callee(func: ast.AST) -> str | None:
    """The last name of what a call calls (``torch.cuda.stream`` -> ``stream``; ``k[grid]`` -> ``k[]``)."""
    if isinstance(func, ast.Subscript):  # kernel[grid](...)
        inner = callee(func.value)
        return f"{inner}[]" if inner else None
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _stream_withs(tree: ast.AST, managers: set[str]) -> Iterator[ast.With | ast.AsyncWith]:
    held = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)  # ctx = …stream(s)
            and callee(n.value.func) in managers for t in n.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any((isinstance(i.context_expr, ast.Call) and callee(
                i.context_expr.func) in managers) or (isinstance(i.context_expr, ast.Name) and i.context_expr.id in held)
                for i in node.items):
            yield node


def under_stream(tree: ast.AST) -> Iterator[str]:
    """The callees called inside ``with torch.cuda.stream(...)``, or inside a context manager the
    program defines around one (``with on_capture_stream():``): which stream a model or its DDP
    wrapper is built on decides which stream its autograd nodes keep."""
    managers = {"stream"}
    managers |= {f.name for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and any(True for _ in _stream_withs(f, {"stream"}))}
    called = {callee(n.func) for w in _stream_withs(tree, managers) for stmt in w.body for n in ast.walk(stmt)
              if isinstance(n, ast.Call) and callee(n.func)}
    yield from called
    for f in ast.walk(tree):  # a function of the program called there runs there too ("model = build()")
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name in called:
            yield from (callee(n.func) for n in ast.walk(f) if isinstance(n, ast.Call) and callee(n.func))
