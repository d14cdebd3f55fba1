"""Edit the graph keys of a YAML config in place, leaving every other byte alone.

A round trip through a YAML library re-spells what it does not keep (indentation of sequences,
quoting, blank lines, document markers), so :func:`edit_yaml` works on the text: PyYAML's
composer gives each key and value its character span, a changed value is replaced inside its
span (in flow style, which is valid in block and flow context alike), a removed key loses its
lines, and a new key goes after the last entry of its mapping with that mapping's indentation
(missing sections are added at the end of the file). Each change is applied to the text and the
text composed again, so later changes see earlier ones. What cannot be edited that way (a
document that is not one mapping, a key inside a flow mapping to remove) is refused, never
rewritten.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from skill_tools.config.model import REMOVE, SECTIONS
from skill_tools.errors import InputError



def edit_yaml(text: str, changes: Mapping[str, Any], source: str = "<yaml>", *, json_style: bool = False) -> tuple[str, list[str]]:
    """``text`` with ``changes`` (canonical key -> value, or :data:`REMOVE`) made; returns the new
    text and notes for keys the file has no place for. ``json_style``: the text is JSON (which
    the YAML composer reads too): keys and values are written as JSON."""
    notes: list[str] = []
    root = _compose(text, source)
    nested = any(str(k.value) in SECTIONS for k, _ in root.value)
    for key, value in changes.items():
        if key.startswith("env."):
            continue
        parts = key.split(".")
        if not nested:
            if parts[0] != "model":
                if value != REMOVE:
                    notes.append(f"{key}={value!r}: a flat TransformerConfig file has no {parts[0]} section; set it "
                                 "where the run's config is built")
                continue
            parts = parts[1:]
        text = _edit_one(text, _compose(text, source), parts, value, source, json_style)
    return text, notes


def _compose(text: str, source: str):
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(source, f"cannot edit this YAML in place: {getattr(exc, 'problem', None) or exc}",
                         line=mark.line + 1 if mark else None) from None
    if not isinstance(root, yaml.MappingNode):
        raise InputError(source, "cannot edit in place: the YAML document is not a mapping")
    return root


def _edit_one(text: str, root, parts: list[str], value: Any, source: str, js: bool) -> str:
    import yaml

    node, depth = root, 0
    while depth < len(parts):
        child = _lookup(node, parts[depth])
        if child is None:
            break
        key_node, value_node = child
        if depth == len(parts) - 1:
            if value == REMOVE:
                return _remove(text, node, key_node, value_node, source)
            return _replace(text, value_node, _flow(value, js, _quote_of(value_node)), source)
        if not isinstance(value_node, yaml.MappingNode):
            if value == REMOVE:
                return text
            raise InputError(source, f"cannot edit in place: {'.'.join(parts[:depth + 1])} is not a mapping",
                             line=key_node.start_mark.line + 1)
        node, depth = value_node, depth + 1
    if value == REMOVE:
        return text
    return _insert(text, root, node, parts[depth:], value, js)


def _lookup(node, key: str):
    for k, v in node.value:
        if str(k.value) == key:
            return k, v
    return None


def _end(text: str, node) -> int:
    """Where a node's own text ends: PyYAML's end mark of a block collection lies past the
    comments and indentation that follow it; its last child ends it."""
    import yaml

    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        return _end(text, last[1] if isinstance(last, tuple) else last)
    end = node.end_mark.index
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        return node.start_mark.index + len(text[node.start_mark.index:end].rstrip())
    return end


def _replace(text: str, value_node, new: str, source: str) -> str:
    import yaml

    start, end = value_node.start_mark.index, _end(text, value_node)
    if text[start:start + 1] in ("&", "*"):
        raise InputError(source, "cannot edit in place: the value is a YAML anchor or alias other keys share",
                         line=value_node.start_mark.line + 1, hint="write the value out, or edit it by hand")
    if start == end and start > 0 and text[start - 1] == ":":
        new = " " + new  # `key:` with no value
    elif isinstance(value_node, (yaml.MappingNode, yaml.SequenceNode)) and not value_node.flow_style:
        colon = text.rfind(":", 0, start)
        if colon >= 0 and not text[colon + 1:start].strip():  # `key:` then the block: the flow value joins the key
            start, new = colon + 1, " " + new
    return text[:start] + new + text[end:]


def _remove(text: str, mapping, key_node, value_node, source: str) -> str:
    end = _end(text, value_node)
    if mapping.flow_style:  # `k: v` with the comma after it (or before it, for the last entry)
        start = key_node.start_mark.index
        after = re.match(r"\s*,[ \t]*", text[end:])
        if after:
            start, end = _whole_lines(text, start, end + after.end())
            return text[:start] + text[end:]
        before = re.search(r",\s*$", text[:start])
        return text[:before.start() if before else start] + text[end:]
    line_start = text.rfind("\n", 0, key_node.start_mark.index) + 1
    if text[line_start:key_node.start_mark.index].strip(" -"):
        raise InputError(source, f"cannot remove {key_node.value!r} in place: it shares its line",
                         line=key_node.start_mark.line + 1)
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    return text[:line_start] + text[line_end:]


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` widened to whole lines when nothing else is on them."""
    line_start = text.rfind("\n", 0, start) + 1
    m = re.match(r"[ \t]*(\n|$)", text[end:])
    if not text[line_start:start].strip() and m:
        return line_start, end + m.end()
    return start, end


def _insert(text: str, root, parent, missing: list[str], value: Any, js: bool) -> str:
    """New keys under ``parent`` (the deepest existing mapping on the path)."""
    step = _indent_step(root)
    block = []
    if parent.flow_style:  # after the last entry (or inside the empty braces)
        body = _nested_flow(missing, value, js)
        if not parent.value:
            at = parent.end_mark.index - 1
            return text[:at] + body + text[at:]
        last_key, last_value = parent.value[-1]
        at = _end(text, last_value)
        own_line = "\n" in text[at:parent.end_mark.index]  # one entry per line: the new one too
        sep = ",\n" + " " * last_key.start_mark.column if own_line else ", "
        return text[:at] + sep + body + text[at:]
    if parent.value:
        column = parent.value[0][0].start_mark.column
        at = _end(text, parent.value[-1][1])
        line_end = text.find("\n", at)
        at = len(text) if line_end < 0 else line_end + 1
    else:  # an empty mapping is the root of an empty document: append
        column, at = 0, len(text)
    for n, part in enumerate(missing):
        indent = " " * (column + n * step)
        if n == len(missing) - 1:
            block.append(f"{indent}{_key(part, js)}: {_flow(value, js)}\n")
        else:
            block.append(f"{indent}{_key(part, js)}:\n")
    prefix = "" if at == 0 or text[at - 1] == "\n" else "\n"
    return text[:at] + prefix + "".join(block) + text[at:]


def _nested_flow(parts: list[str], value: Any, js: bool) -> str:
    inner = _flow(value, js)
    for part in reversed(parts[1:]):
        inner = "{" + f"{_key(part, js)}: {inner}" + "}"
    return f"{_key(parts[0], js)}: {inner}"


def _indent_step(root) -> int:
    import yaml

    for _, v in root.value:
        if isinstance(v, yaml.MappingNode) and not v.flow_style and v.value:
            return max(1, v.value[0][0].start_mark.column)
    return 2


def _key(name: str, js: bool) -> str:
    if js:
        import json

        return json.dumps(name, ensure_ascii=False)
    return name if re.fullmatch(r"[A-Za-z_][\w-]*", name) else _flow(name, js)


def _quote_of(node) -> str | None:
    """The quote style of a string scalar (kept when a string replaces a string)."""
    return node.style if getattr(node, "style", None) in ("'", '"') else None


def _flow(value: Any, js: bool, quote: str | None = None) -> str:
    """``value`` as one line of flow YAML that PyYAML's safe loader reads back equal (a string in
    the ``quote`` style the old value used, where that style can say it)."""
    import yaml

    if js:
        import json

        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and quote == '"' and value.isprintable():
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, str) and quote == "'" and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    out = yaml.safe_dump(value, default_flow_style=True, width=1 << 20, allow_unicode=True)
    out = out.rstrip("\n")
    if out.endswith("\n..."):
        out = out[: -len("\n...")]
    return out.rstrip("\n")
