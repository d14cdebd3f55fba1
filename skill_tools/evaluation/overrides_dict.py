"""A dict of dotted overrides written as Python, JSON or YAML (``{"model.cuda_graph_impl":
"transformer_engine", "rng.te_rng_tracker": True}``, ``overrides = {...}``, a YAML list of
``key=value`` strings) means the same as the Hydra overrides ``model.cuda_graph_impl=...``; it is
rewritten as those lines for the Hydra reader. Python is parsed with ``ast`` and only literals are
read (``ast.literal_eval``); nothing is executed.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from skill_tools.config import pysource

_DOTTED = re.compile(r"^[+~]{0,2}[A-Za-z_]\w*(?:\.\w+)+$")
_OVERRIDE = re.compile(r"^[+~]{0,2}[A-Za-z_]\w*(?:\.\w+)+=")


def dotted_overrides(text: str, kind: str) -> str | None:
    """Hydra override lines for a dict (or list) of dotted overrides, else None."""
    data: Any = None
    if kind == "json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = _python_dict(text)  # JSON-like with comments, None/True: a Python dict literal
    elif kind == "python":
        data = _python_dict(text) or _python_override_list(text)
    elif kind == "yaml":
        try:
            import yaml

            data = yaml.safe_load(text)
        except Exception:  # the YAML reader reports it
            return None
    if isinstance(data, list) and data and all(isinstance(x, str) and _OVERRIDE.match(x) for x in data):
        return "\n".join(data)
    if not isinstance(data, dict) or not data or not all(isinstance(k, str) and _DOTTED.match(k) for k in data):
        return None
    return "\n".join(f"{k}={render(v)}" for k, v in data.items())


def bare_assignments(text: str) -> str | None:
    """``cuda_graph_impl = "local"`` (names, not ``cfg.`` attributes) as Hydra overrides, when every
    statement is such an assignment of a literal."""
    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and "_" in node.targets[0].id):
            return None
        try:
            value = ast.literal_eval(node.value.elts[0] if pysource.bare_one_tuple(node.value) else node.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
        lines.append(f"{node.targets[0].id}={render(value)}")
    return "\n".join(lines) or None


def _python_dict(text: str) -> dict[str, Any] | None:
    """The dict literals with dotted string keys (assignments, expressions or call arguments), merged
    in the order they are written: ``recipe_1 = {...}`` then ``recipe_2 = {...}`` are read like the
    files of a multi-file diff, the later one laid over the earlier."""
    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    dicts = [node for node in ast.walk(tree) if isinstance(node, ast.Dict) and node.keys and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) and _DOTTED.match(k.value) for k in node.keys)]
    if not dicts:
        return None
    out: dict[str, Any] = {}
    for node in sorted(dicts, key=lambda n: (n.lineno, n.col_offset)):
        for k, v in zip(node.keys, node.values):
            try:
                out[k.value] = ast.literal_eval(v)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                out[k.value] = ast.unparse(v)[:200]
    return out


def _python_override_list(text: str) -> list[str] | None:
    """``overrides = ["model.use_te_rng_tracker=true", ...]``: list literals of Hydra override strings
    (an OmegaConf dotlist), in the order they are written."""
    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out = [e.value for node in ast.walk(tree) if isinstance(node, (ast.List, ast.Tuple)) and node.elts
           and all(isinstance(e, ast.Constant) and isinstance(e.value, str) and _OVERRIDE.match(e.value) for e in node.elts)
           for e in node.elts]
    return out or None


def render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(render(v) for v in value) + "]"
    if isinstance(value, str):
        return value if re.fullmatch(r"[\w.:+/-]*", value) else json.dumps(value)
    return str(value)


#: A variable that holds a string (``graphs := "…"`` in a justfile or Makefile, ``GRAPHS="…"`` in a
#: shell script, ``OVERRIDES = "…"`` in Python), its continuation lines joined.
_ASSIGNED = re.compile(r"^[ \t]*(?:export[ \t]+)?[A-Za-z_]\w*[ \t]*(?::=|\?=|\+=|=)[ \t]*([\"'])(.*?)\1",
                       re.M | re.S)


def assigned_overrides(text: str) -> tuple[str, str] | None:
    """The overrides or flags that variables of ``text`` hold, as (text, kind) for a reader: Hydra
    lines when every word of those strings is a dotted ``key=value``, Megatron-LM flags when the words
    start with ``--``. A recipe that keeps its overrides in a variable and expands it in a command
    (``{{graphs}}``, ``$GRAPHS``) means them; a string of anything else is not read."""
    hydra: list[str] = []
    flags: list[str] = []
    for m in _ASSIGNED.finditer(text.replace("\\\n", " ")):
        words = m.group(2).split()
        if words and all(_OVERRIDE.match(w) for w in words):
            hydra.extend(words)
        elif words and words[0].startswith("--") and not any(w.startswith(("$", "{{")) for w in words):
            flags.extend(words)
    if hydra and not flags:
        return "\n".join(hydra), "hydra"
    if flags and not hydra:
        return "python train.py " + " ".join(flags), "megatron_lm"
    return None
