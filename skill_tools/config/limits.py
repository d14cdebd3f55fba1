"""Bounds on what a config reader accepts, so that no input crashes a reader or runs unbounded.

Real configs nest a handful of levels (``model.cuda_graph_scope: [attn, mlp]``), hold integers of
a few digits and use YAML anchors, if at all, a few times. Anything far beyond that is refused with
an :class:`~skill_tools.errors.InputError` naming the input, before a recursive walk (``_untarget``,
``CanonicalConfig.copy``, the YAML rewriter) can hit Python's recursion limit or a YAML alias bomb
can expand into gigabytes. One loader for every YAML input: ``validate``/``apply``/``recommend``
read configs through it and the evals scorer hands answer fragments to the same readers (its text
screen uses the same limits).
"""

from __future__ import annotations

import re
from typing import Any

from skill_tools.errors import InputError

#: Deepest nesting of brackets or mappings/lists accepted (real configs: under 6).
MAX_NESTING = 40
#: YAML aliases (``*name``) accepted in one document.
MAX_YAML_ALIASES = 20
#: Nodes of a YAML document counted with every alias expanded (a 386-byte bomb expands to ~10^9).
MAX_YAML_NODES = 200_000
#: Digits of an integer literal (Python refuses more than 4300 in int(str) by default).
MAX_INT_DIGITS = 100

_YAML_ALIAS = re.compile(r"(?:^|[\s\[\{,:-])\*[A-Za-z0-9_-]+", re.M)


def bracket_depth(text: str) -> int:
    """Deepest nesting of ``([{`` in ``text`` (a pre-parse bound, linear and vectorised: a closing
    bracket with nothing open is ignored, as a parser would stop there)."""
    opening = text.count("(") + text.count("[") + text.count("{")
    if opening <= MAX_NESTING:  # cannot nest deeper than the brackets it has
        return _depth_walk(text) if opening else 0
    import numpy as np

    data = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    steps = np.zeros(len(data), dtype=np.int64)
    steps[np.isin(data, _OPEN)] = 1
    steps[np.isin(data, _CLOSE)] = -1
    level = np.cumsum(steps)
    floor = np.minimum.accumulate(np.minimum(level, 0))  # unmatched closers lower the floor
    return int((level - floor).max()) if len(level) else 0


_OPEN = [ord(c) for c in "([{"]
_CLOSE = [ord(c) for c in ")]}"]


def _depth_walk(text: str) -> int:
    depth = best = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            if depth > best:
                best = depth
        elif ch in ")]}" and depth:
            depth -= 1
    return best


def yaml_alias_count(text: str) -> int:
    """Aliases (``*name``) in YAML text, counted without parsing."""
    return len(_YAML_ALIAS.findall(text))


def check_brackets(text: str, source: str) -> None:
    depth = bracket_depth(text)
    if depth > MAX_NESTING:
        raise InputError(source, f"brackets nest {depth} levels deep (limit {MAX_NESTING}); not a config",
                         hint="a config nests a few levels; pass the config itself")


def check_data(data: Any, source: str) -> None:
    """Refuse parsed data nested deeper than MAX_NESTING (iterative: any depth is safe to check)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            continue
        if depth > MAX_NESTING:
            raise InputError(source, f"data nests more than {MAX_NESTING} levels deep; not a config",
                             hint="a config nests a few levels; pass the config itself")
        stack.extend((child, depth + 1) for child in children)


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_unicode(cfg: Any, source: str) -> None:
    """Refuse a key or value holding a lone surrogate (``"\\ud800"`` escapes in JSON, YAML or
    Python strings): it is no Unicode text, no file can hold it, and every writer would fail."""
    items = [*cfg.values.items(), *cfg.env.items(), *(("", t) for t, _ in cfg.overrides), *(("", t) for t, _ in cfg.argv)]
    for key, value in items:
        stack = [key, value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                found = _SURROGATE.search(item)
                if found:
                    line = cfg.locations[key].line if key in cfg.locations else None
                    raise InputError(source, f"{key or 'text'} holds a lone surrogate ({ascii(found.group())}), "
                                             "which is not Unicode", line=line,
                                     hint="fix the \\u escape (a surrogate pair, or the character itself)")
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, (list, tuple)):
                stack.extend(item)


def check_int_digits(text: str, source: str, line: int | None = None) -> None:
    digits = len(text.lstrip("+-").replace("_", ""))
    if digits > MAX_INT_DIGITS:
        raise InputError(source, f"integer of {digits} digits (limit {MAX_INT_DIGITS}); not a config value",
                         line=line)


def load_yaml(text: str, source: str) -> tuple[Any, Any]:
    """``(data, root node)`` of one YAML document with the safe loader, bounded: aliases, nesting,
    expanded size and integer length are checked on the composed node graph before any Python
    object is built. Raises ``yaml.YAMLError`` for syntax errors (the caller words them)."""
    import yaml

    aliases = yaml_alias_count(text)
    if aliases > MAX_YAML_ALIASES:
        raise InputError(source, f"YAML uses {aliases} aliases (limit {MAX_YAML_ALIASES}); possible alias bomb, not read")
    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_cls(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise InputError(source, f"YAML nests more than {MAX_NESTING} levels deep; not a config") from None
        if node is None:
            return None, None
        _check_nodes(node, source, aliases)
        try:
            return loader.construct_document(node), node
        except yaml.YAMLError:
            raise
        except Exception as exc:  # noqa: BLE001 - PyYAML's constructors raise plain errors on bad tagged values
            raise _bad_value(loader, node, source, exc) from None
    finally:
        loader.dispose()


def _check_nodes(root: Any, source: str, aliases: int = 0) -> None:
    """Depth, expanded size and integer length of a YAML node graph (iterative; shared alias
    nodes are sized once and counted as often as they are referenced)."""
    import yaml

    size: dict[int, int] = {}
    stack: list[tuple[Any, int, bool]] = [(root, 1, False)]
    on_path: set[int] = set()
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in _children(node))
            if size[key] > MAX_YAML_NODES:
                if not aliases:
                    raise InputError(source, f"YAML holds more than {MAX_YAML_NODES} nodes; a config has a few "
                                             "thousand", hint="pass the config itself")
                raise InputError(source, f"YAML expands to more than {MAX_YAML_NODES} nodes (aliases); "
                                         "possible alias bomb, not read")
            continue
        if key in size:
            continue
        if key in on_path:
            raise InputError(source, "YAML refers to itself through an alias (recursive structure)",
                             line=node.start_mark.line + 1)
        if depth > MAX_NESTING:
            raise InputError(source, f"YAML nests more than {MAX_NESTING} levels deep; not a config",
                             line=node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            if node.tag == "tag:yaml.org,2002:int":
                check_int_digits(str(node.value), source, node.start_mark.line + 1)
            size[key] = 1
            continue
        if isinstance(node, yaml.MappingNode):
            _check_duplicate_keys(node, source)
        on_path.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(node))


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_duplicate_keys(node: Any, source: str) -> None:
    """A key given twice in one mapping: PyYAML keeps the last silently, OmegaConf (Bridge's
    loader) refuses the file; either way one of the two values is not what the user meant."""
    import yaml

    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
            continue
        line = key_node.start_mark.line + 1
        first = seen.setdefault(key_node.value, line)
        if first != line:
            raise InputError(source, f"duplicate key {key_node.value!r} (first at line {first})", line=line,
                             hint="a mapping holds each key once; Bridge's YAML loader refuses duplicates")


def _bad_value(loader: Any, root: Any, source: str, exc: Exception) -> InputError:
    """The scalar whose explicit tag does not fit its value (``!!int ''``, ``!!timestamp moe``),
    found by building each tagged scalar alone; the error PyYAML raised, in one line."""
    import yaml

    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            try:
                loader.construct_object(node, deep=True)
            except Exception:  # noqa: BLE001 - located: report this node
                return InputError(source, f"value {str(node.value)[:40]!r} cannot be read as {node.tag.rsplit(':', 1)[-1]!r}",
                                  line=node.start_mark.line + 1, hint="fix or drop the explicit !!tag")
            continue
        stack.extend(_children(node))
    return InputError(source, f"YAML value cannot be built: {type(exc).__name__}: {str(exc)[:120]}")
