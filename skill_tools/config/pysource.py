"""Python text parsed, never executed, and quietly: ``ast.parse`` prints a ``SyntaxWarning`` to
stderr for an odd escape or literal in the text (``"\\d"``, ``0xfff...g``), which is the text's
business, not a message of ours. Every reader of Python text (recipes, answers, logs that may be
source) parses through here; each caller keeps its own handling of ``SyntaxError``, ``ValueError``
(a NUL byte), ``RecursionError`` and ``MemoryError`` (CPython's "parser stack overflowed")."""

from __future__ import annotations

import ast
import warnings


def parse(text: str, filename: str = "<text>") -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(text, filename=filename)


def bare_one_tuple(value: ast.AST) -> bool:
    """``cuda_graph_impl="local",`` — keyword arguments copied out of a call, one per line: Python
    reads the trailing comma as a one-element tuple, the writer meant the value. Only an unbracketed
    tuple of one element counts (``("local",)`` stays a tuple)."""
    return isinstance(value, ast.Tuple) and len(value.elts) == 1 and \
        (value.lineno, value.col_offset) == (value.elts[0].lineno, value.elts[0].col_offset)
