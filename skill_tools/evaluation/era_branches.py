"""Python that picks its spelling by megatron-core version, read one era per branch.

Agents hedge across the two API eras in code as often as in prose: ``if Version(mcore.__version__) <
Version("0.18"): cfg.model.cuda_graph_scope = [...] else: cfg.model.cuda_graph_modules = [...]``, or
Bridge's own test ``hasattr(cfg.model, "cuda_graph_modules")``. Read as one block, both branches'
keys merge into a config no megatron-core accepts. :func:`split_by_era` parses the code (``ast``,
never run) and returns the code outside such ``if`` statements (no era) and each branch's body
(dedented) with the era its test selects; code without a version test returns ``[]``.
:func:`era_split` also reads the other way agents hedge in one block: sections headed by a comment
that names one era (``# megatron-core 0.18+`` … ``# 0.16-0.17`` … ``# both eras``).
"""

from __future__ import annotations

import ast
import re
import textwrap

from skill_tools.config.pysource import parse
from skill_tools.evaluation.polarity import name_era

LEGACY, CURRENT = "legacy", "current"
_VERSION = re.compile(r"^\s*(\d+)\.(\d+)")
_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def _version(node: ast.AST) -> tuple[int, int] | None:
    """(major, minor) of a version literal: "0.18", Version("0.18.0"), (0, 18)."""
    if isinstance(node, ast.Call) and node.args:
        return _version(node.args[0])
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        m = _VERSION.match(node.value)
        return (int(m.group(1)), int(m.group(2))) if m else None
    if isinstance(node, ast.Tuple) and len(node.elts) >= 2 and all(isinstance(e, ast.Constant) for e in node.elts[:2]):
        a, b = node.elts[0].value, node.elts[1].value
        return (a, b) if isinstance(a, int) and isinstance(b, int) else None
    return None


def era_of_test(test: ast.AST) -> str | None:
    """The era an ``if`` test selects for its body (None: not a megatron-core version test)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = era_of_test(test.operand)
        return None if inner is None else (LEGACY if inner == CURRENT else CURRENT)
    if isinstance(test, ast.Call) and getattr(test.func, "id", None) == "hasattr" and len(test.args) == 2:
        name = test.args[1]
        if isinstance(name, ast.Constant) and name.value in ("cuda_graph_modules", "inference_cuda_graph_scope"):
            return CURRENT  # Bridge's utils/cuda_graph.py test for the 0.18+ API
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, type(test.ops[0]), test.comparators[0]
    v = _version(right)
    if v is None:
        v, op = _version(left), _FLIP.get(op)
    if v is None or op is None or v[0] != 0:
        return None
    minor = v[1]
    if op is ast.Lt:  # x < 0.18 (or lower): the old API
        return LEGACY if minor <= 18 else None
    if op is ast.LtE:
        return LEGACY if minor <= 17 else None
    if op is ast.GtE:
        return CURRENT if minor >= 18 else None
    if op is ast.Gt:
        return CURRENT if minor >= 17 else None
    return None


def split_by_era(source: str) -> list[tuple[str | None, str]]:
    """``[(era or None, code), ...]``: the code outside version tests, then each branch with its era."""
    try:
        tree = parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = source.split("\n")
    gated = [n for n in ast.walk(tree) if isinstance(n, ast.If) and era_of_test(n.test) is not None]
    gated = [n for n in gated if not any(o is not n and o.lineno < n.lineno <= o.end_lineno for o in gated)]
    if not gated:
        return []
    out: list[tuple[str | None, str]] = []
    rest = list(lines)
    for node in gated:
        era = era_of_test(node.test)
        other = LEGACY if era == CURRENT else CURRENT
        for branch, branch_era in ((node.body, era), (node.orelse, other)):
            if branch and not (len(branch) == 1 and isinstance(branch[0], ast.If) and branch is node.orelse
                               and era_of_test(branch[0].test) is not None):
                text = "\n".join(lines[branch[0].lineno - 1:branch[-1].end_lineno])
                out.append((branch_era, textwrap.dedent(text)))
        indent = lines[node.lineno - 1][: len(lines[node.lineno - 1]) - len(lines[node.lineno - 1].lstrip())]
        for i in range(node.lineno - 1, node.end_lineno):
            rest[i] = ""
        rest[node.lineno - 1] = indent + "pass"
    return [(None, "\n".join(rest))] + out


_SHELL_ASSIGN = re.compile(r"^\s*(?:export\s+|declare\s+-\w+\s+|local\s+)?([A-Za-z_]\w*)\+?=(.*)$")


def named_split(body: str, kind: str) -> list[tuple[str | None, str]]:
    """Variables named for the era they hold (``OVERRIDES_019 = [...]`` beside ``OVERRIDES_016 = [...]``,
    a shell ``ARGS_019=(…)``): each assignment with its name's era, the rest with none; ``[]`` unless
    both eras are named."""
    lines = body.split("\n")
    parts: list[tuple[str | None, set[int]]] = []
    if kind == "python":
        try:
            tree = parse(body)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            era = next((name_era(t.id) for t in targets if isinstance(t, ast.Name) and name_era(t.id)), None)
            if era is not None:
                parts.append((era, set(range(node.lineno - 1, node.end_lineno))))
    else:
        k = 0
        while k < len(lines):
            m = _SHELL_ASSIGN.match(lines[k])
            era = name_era(m.group(1)) if m else None
            end = _shell_extent(lines, k, m.group(2).strip()) if era is not None else k
            if era is not None:
                parts.append((era, set(range(k, end + 1))))
            k = end + 1
    if {era for era, _ in parts} != {LEGACY, CURRENT}:
        return []
    named = set().union(*(keep for _, keep in parts))
    return _sections(lines, [(None, set(range(len(lines))) - named)] + parts)


def _shell_extent(lines: list[str], k: int, value: str) -> int:
    """The last line of the shell assignment on line ``k``: an array ``(…)`` up to its ``)``, a quoted
    value up to its closing quote, then any backslash continuation."""
    end = k
    if value.startswith("("):
        depth = value.count("(") - value.count(")")
        while depth > 0 and end + 1 < len(lines):
            end += 1
            depth += lines[end].count("(") - lines[end].count(")")
    elif value[:1] in ("'", '"'):
        still_open = value.count(value[0]) % 2 == 1
        while still_open and end + 1 < len(lines):
            end += 1
            still_open ^= lines[end].count(value[0]) % 2 == 1
    while lines[end].rstrip().endswith("\\") and end + 1 < len(lines):
        end += 1
    return end


#: A section header: a whole-line comment (``#`` or ``//``) at the block's left margin.
_HEADER = re.compile(r"^(?:#|//)\s*(?P<text>.*)$")


def era_split(body: str, kind: str) -> list[tuple[str | None, str]]:
    """Python's version tests (:func:`split_by_era`), else comment-headed sections when their
    headers name both eras; ``[]`` when the block is one era's (or no era's) code."""
    from skill_tools.evaluation.polarity import era_of

    branches = split_by_era(body) if kind == "python" else shell_split(body) if kind == "shell" else []
    branches = branches or (named_split(body, kind) if kind in ("python", "shell") else [])
    if branches or kind not in ("python", "yaml", "shell"):
        return branches
    lines = body.split("\n")
    starts: list[tuple[int, str | None]] = []
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m and (i == 0 or not lines[i - 1].strip()) and not (m.group("text").split("=")[0].strip().isidentifier()):
            starts.append((i, era_of(m.group("text"))))
    if not {LEGACY, CURRENT} <= {era for _, era in starts}:
        return []  # one era's code (or none named): one block
    out: list[tuple[str | None, str]] = []
    if starts and starts[0][0] > 0:
        out.append((None, "\n".join(lines[:starts[0][0]])))
    for n, (i, era) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        out += _sections(lines, [(era, set(range(i, end)))])
    return [(era, code) for era, code in out if code.strip()]


#: ``if [ "$MCORE_MINOR" -ge 18 ]; then`` / ``if [[ $MINOR -lt 18 ]]``: a shell test of megatron-core's minor version.
_MINOR_VAR = r"\"?\$\{?(\w*(?:MCORE|MEGATRON|MINOR|VER)\w*)\}?\"?"
_SHELL_IF = re.compile(r"^\s*if\s+\[\[?\s*" + _MINOR_VAR + r"\s+-(ge|gt|lt|le)\s+\"?(\d+)\"?", re.I)
#: ``case "$MINOR" in``: the same version read by pattern.
_SHELL_CASE = re.compile(r"^\s*case\s+" + _MINOR_VAR + r"\s+in\b", re.I)
_ARM = re.compile(r"^\s*\(?([\w|.*\"' ]+)\)(?!\))")


def shell_split(body: str) -> list[tuple[str | None, str]]:
    """A launch script that picks its flags by megatron-core version (``if [ "$MCORE_MINOR" -ge 18
    ]; then … else … fi``): the code outside the test (no era) and each branch with the era its test
    selects, line count kept; ``[]`` when there is no such test."""
    lines = body.split("\n")
    arms = _case_arms(lines)
    if arms:
        return arms
    for i, line in enumerate(lines):
        m = _SHELL_IF.match(line)
        if not m:
            continue
        minor, op = int(m.group(3)), m.group(2)
        new_when_true = (op == "ge" and minor >= 18) or (op == "gt" and minor >= 17)
        if not new_when_true and not ((op == "lt" and minor <= 18) or (op == "le" and minor <= 17)):
            return []
        depth, other, end = 0, None, None
        for k in range(i + 1, len(lines)):
            word = lines[k].strip().split(" ")[0].rstrip(";")
            if word == "if":
                depth += 1
            elif word == "fi" and depth:
                depth -= 1
            elif word in ("else", "elif") and not depth and other is None:
                other = k
            elif word == "fi":
                end = k
                break
        if end is None:
            return []
        first = (CURRENT, LEGACY) if new_when_true else (LEGACY, CURRENT)
        parts = [(None, set(range(i)) | set(range(end + 1, len(lines)))), (first[0], set(range(i + 1, other or end)))]
        if other is not None:
            parts.append((first[1], set(range(other + 1, end))))
        return _sections(lines, parts)
    return []


def _sections(lines: list[str], parts: list[tuple[str | None, set[int]]]) -> list[tuple[str | None, str]]:
    """Each part's lines with the rest blanked (the line count is kept: locations stay the block's).
    A ``case`` arm keeps its pattern ("17) GRAPH_ARGS=(…)"): :func:`shells.without_prose` reads
    the command after it."""
    return [(era, "\n".join(lines[k] if k in keep else "" for k in range(len(lines)))) for era, keep in parts]


def _case_arms(lines: list[str]) -> list[tuple[str | None, str]]:
    """``case "$MINOR" in 16|17) … ;; 18|19) … ;; esac``: each arm whose patterns are minor versions
    of one era, with that era; an arm of no era (``*)``) is left out. ``[]`` without such a case."""
    start = next((i for i, ln in enumerate(lines) if _SHELL_CASE.match(ln)), None)
    end = next((k for k in range(start + 1, len(lines)) if lines[k].strip() == "esac"), None) if start is not None else None
    if start is None or end is None:
        return []
    outside = set(range(start)) | set(range(end + 1, len(lines)))
    parts: list[tuple[str | None, set[int]]] = [(None, outside)]
    k = start + 1
    while k < end:
        m = _ARM.match(lines[k])
        if not m:
            k += 1
            continue
        close = next((j for j in range(k, end) if ";;" in lines[j]), end - 1)
        minors = [int(n) for n in re.findall(r"\b0?\.?(1[6-9]|2\d)\b", m.group(1))]
        era = LEGACY if minors and max(minors) <= 17 else CURRENT if minors and min(minors) >= 18 else None
        if era is not None:
            parts.append((era, set(range(k, close + 1))))
        k = close + 1
    return _sections(lines, parts) if len(parts) > 1 else []
