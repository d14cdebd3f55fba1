"""Edit the graph settings of a Python recipe in place, leaving every other byte alone.

A recipe is code (imports, functions, other fields, comments); re-rendering it from the
canonical model would keep only the assignments. :func:`edit_python` uses the positions
:mod:`ast` gives each node (``lineno``/``col_offset`` to ``end_lineno``/``end_col_offset``):

* ``cfg.model.cuda_graph_impl = "local"`` and ``TransformerConfig(cuda_graph_impl="local")``:
  the value expression is replaced, in the recipe's own quote style;
* a key to remove loses its statement's lines (or its keyword, with its comma);
* a new key goes after the last config assignment of the recipe, at that statement's
  indentation and through the same object (``cfg.rng.te_rng_tracker = True`` where the recipe
  writes ``cfg.model...``), or as a keyword of the config call where the recipe has no
  assignments. A key the recipe has no object for is returned as a note.

The result is parsed again and must read back with the new values; a recipe the editor cannot
change that way (a graph key set by tuple unpacking or a chained assignment) is refused.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Mapping

from skill_tools.config import pysource
from skill_tools.config.model import REMOVE, SECTIONS
from skill_tools.config.read_python import MODEL_CALL, attr_chain, python_key
from skill_tools.errors import InputError



@dataclass
class _Site:
    key: str
    stmt: ast.AST          # the statement (assignment) or the keyword
    value: ast.AST         # the value expression
    chain: list[str]       # the target's attribute chain ([] for a keyword)
    scope: int = 0         # id of the enclosing function (0: module level): one recipe of several


def edit_python(text: str, changes: Mapping[str, Any], source: str = "<python>") -> tuple[str, list[str]]:
    """``text`` with ``changes`` (canonical key -> value, or :data:`REMOVE`) made; returns the new
    text and notes for keys the recipe has no place for."""
    tree = _parse(text, source)
    offsets = _Offsets(text)
    assigns, keywords, calls = _sites(tree, source, changes)
    quote = _quote_style(text, offsets, assigns + keywords)
    edits: list[tuple[int, int, str]] = []
    notes: list[str] = []
    new_assign: list[str] = []
    new_keyword: list[str] = []
    for key, value in changes.items():
        if key.startswith("env."):
            continue
        found = [s for s in assigns + keywords if s.key == key]
        for site in found:
            if value == REMOVE:
                edits.append(_removal(text, offsets, site))
            else:
                edits.append((*offsets.span(site.value), _literal(value, quote)))
        if found or value == REMOVE:
            continue
        placed = _assignment_for(key, value, assigns, changes, quote)
        new_assign.extend(placed)
        if placed:
            continue
        if key.startswith("model.") and calls:
            new_keyword.append(f"{key[len('model.'):]}={_literal(value, quote)}")
        else:
            notes.append(f"{key}={value!r}: the recipe has no object that holds {key.split('.')[0]}; set it by hand")
    for anchor in {id(a): a for _, a in new_assign}.values():  # each new line after the statement it follows
        at = offsets.line_end(anchor.stmt.end_lineno)
        indent = " " * anchor.stmt.col_offset if _indent_is_spaces(text, offsets, anchor.stmt) else \
            offsets.indent(anchor.stmt.lineno)
        newline = _newline(text)
        prefix = "" if at == 0 or text[at - 1] in "\r\n" else newline
        lines = [line for line, a in new_assign if a is anchor]
        edits.append((at, at, prefix + "".join(f"{indent}{line}{newline}" for line in lines)))
    if new_keyword:
        edits.append(_keyword_insertion(text, offsets, calls[-1], new_keyword))
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + new + text[end:]
    _parse(text, source, after_edit=True)
    return text, notes


def _parse(text: str, source: str, after_edit: bool = False) -> ast.Module:
    try:
        return pysource.parse(text, source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        if after_edit:
            raise InputError(source, "cannot edit this recipe in place (the edit would not parse)",
                             hint="set the graph fields by hand; skill-tools apply --format python prints them") from None
        raise InputError(source, f"Python syntax error: {getattr(exc, 'msg', exc)}", line=getattr(exc, "lineno", None)) from None


def _sites(tree: ast.Module, source: str, changes: Mapping[str, Any]) -> tuple[list[_Site], list[_Site], list[ast.Call]]:
    assigns: list[_Site] = []
    keywords: list[_Site] = []
    calls: list[ast.Call] = []
    scopes = {id(child): id(fn) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
              for child in ast.walk(fn) if child is not fn}  # inner functions overwrite: walk is outer first
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            keyed = [(t, python_key(c)) for t in targets for c in [attr_chain(t)] if c]
            keyed = [(t, k) for t, k in keyed if k]
            unpacked = [t for t in targets if isinstance(t, (ast.Tuple, ast.List))]
            if unpacked and any(_tuple_keys(t) & set(changes) for t in unpacked):
                raise InputError(source, "cannot edit in place: a graph key is set by tuple unpacking",
                                 line=node.lineno, hint="write one assignment per key")
            if len(targets) > 1 and any(k in changes for _, k in keyed):
                raise InputError(source, "cannot edit in place: a graph key is set by a chained assignment",
                                 line=node.lineno, hint="write one assignment per key")
            if len(targets) == 1 and keyed:
                assigns.append(_Site(keyed[0][1], node, node.value, attr_chain(targets[0]), scopes.get(id(node), 0)))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if MODEL_CALL.search(name or ""):
                calls.append(node)
                keywords += [_Site("model." + kw.arg, kw, kw.value, []) for kw in node.keywords if kw.arg]
    calls.sort(key=lambda c: (c.lineno, c.col_offset))
    return assigns, keywords, calls


def _tuple_keys(target: ast.AST) -> set[str]:
    out = set()
    for elt in getattr(target, "elts", []):
        chain = attr_chain(elt)
        key = python_key(chain) if chain else None
        if key:
            out.add(key)
    return out


def _assignment_for(key: str, value: Any, assigns: list[_Site], changes: Mapping[str, Any],
                    quote: str) -> list[tuple[str, _Site]]:
    """``cfg.section.field = value`` lines and the statements they go after: through the object
    the recipe already uses for the section (``cfg.model.x``: a container, any section;
    ``model.x``: that section; ``provider.x``: model fields), after the last graph setting written
    that way in each recipe function (a file of several recipes gets it in each). Empty when the
    recipe has no such object."""
    section, rest = key.split(".", 1)
    forms = [
        (lambda c: len(c) > 2 and c[1] in SECTIONS, lambda c: f"{c[0]}.{key}"),
        (lambda c: c[0] == section and len(c) == 2, lambda c: key),
        (lambda c: len(c) == 2 and section == "model" and c[0] not in SECTIONS, lambda c: f"{c[0]}.{rest}"),
    ]
    for fits, target in forms:
        sites = [s for s in assigns if fits(s.chain)]
        if not sites:
            continue
        if fits is forms[2][0] and any(forms[0][0](s.chain) for s in assigns):
            continue  # `cfg.env_vars = ...` next to `cfg.model.x = ...`: cfg is a container, not a model
        graph = [s for s in sites if s.key in changes or "cuda_graph" in s.key] or sites
        out = []
        for scope in dict.fromkeys(s.scope for s in graph):
            anchor = max((s for s in graph if s.scope == scope), key=lambda s: (s.stmt.end_lineno, s.stmt.end_col_offset))
            out.append((f"{target(anchor.chain)} = {_literal(value, quote)}", anchor))
        return out
    return []


def _keyword_insertion(text: str, offsets: "_Offsets", call: ast.Call, new: list[str]) -> tuple[int, int, str]:
    args = [*call.args, *call.keywords]
    if args:
        last = max(args, key=lambda a: (a.end_lineno, a.end_col_offset))
        at = offsets.at(last.end_lineno, last.end_col_offset)
        return at, at, "".join(f", {kw}" for kw in new)
    at = offsets.at(call.end_lineno, call.end_col_offset) - 1  # before ')'
    return at, at, ", ".join(new)


def _removal(text: str, offsets: "_Offsets", site: _Site) -> tuple[int, int, str]:
    start, end = offsets.span(site.stmt)
    if site.chain:  # a statement: its whole lines when nothing else shares them
        line_start = offsets.at(site.stmt.lineno, 0)
        line_end = offsets.line_end(site.stmt.end_lineno)
        rest = text[end:line_end].strip()
        if not text[line_start:start].strip() and (not rest or rest.startswith("#")):
            return line_start, line_end, ""
        return start, end, "pass"
    after = re.match(r"\s*,[ \t]*", text[end:])
    if after:
        return start, end + after.end(), ""
    before = re.search(r",\s*$", text[:start])
    return (before.start() if before else start), end, ""


def _literal(value: Any, quote: str) -> str:
    """Python source for a plain value, strings in the recipe's quote style."""
    if isinstance(value, str):
        text = repr(value)
        if quote == '"' and text.startswith("'") and '"' not in value:
            text = '"' + text[1:-1].replace("\\'", "'") + '"'
        return text
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v, quote) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k, quote)}: {_literal(v, quote)}" for k, v in value.items()) + "}"
    return repr(value)


def _quote_style(text: str, offsets: "_Offsets", sites: list[_Site]) -> str:
    for site in sites:
        if isinstance(site.value, ast.Constant) and isinstance(site.value.value, str):
            start, _ = offsets.span(site.value)
            return '"' if text[start:start + 1] == '"' else "'"
    return '"' if text.count('"') > text.count("'") else "'"


def _indent_is_spaces(text: str, offsets: "_Offsets", stmt: ast.AST) -> bool:
    return offsets.indent(stmt.lineno) == " " * stmt.col_offset


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


class _Offsets:
    """ast positions (line, UTF-8 byte column) -> character offsets in ``text``."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def at(self, line: int, col_bytes: int) -> int:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return start + len(self.text[start:end].encode("utf-8", "surrogatepass")[:col_bytes].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.at(node.lineno, node.col_offset), self.at(node.end_lineno, node.end_col_offset)

    def line_end(self, line: int) -> int:
        """Offset just past the end of ``line`` (its newline included)."""
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def indent(self, line: int) -> str:
        start = self.starts[line - 1]
        return re.match(r"[ \t]*", self.text[start:]).group(0)
