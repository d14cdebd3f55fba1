"""Hydra's override grammar (hydra-core ``OverridesParser``, ``OverrideParser.g4``), for the
overrides Bridge recipes take on the command line.

:func:`parse_override` splits one override (a shell word, quotes already removed by the
shell) into its prefix (``+``, ``++``, ``~``), key (``model.cuda_graph_scope``, a config group
``model/llama``, a package ``model@pkg``) and value; :func:`value` reads a value the way Hydra's
parser does: ``null``/``true``/``false`` in any case, ``1_000`` and ``.5`` and ``inf`` as
numbers, ``01`` as text, quoted strings with ``\\'`` escapes, ``\\,`` escapes in plain strings,
``[...]`` lists and ``{k: v}`` dicts nested at will. Sweeps and function calls (``choice(1,2)``)
and interpolations (``${a.b}``) stay text. The test suite holds this against hydra-core itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skill_tools.config.limits import MAX_INT_DIGITS

_KEY = re.compile(r"^(~|\+\+|\+)?([A-Za-z_$][\w$-]*(?:[./][\w$-]+)*)(?:@([\w$.-]*))?(?:(=)(.*))?$", re.S)
_INT = re.compile(r"^[+-]?(?:0|[1-9](?:_?\d)*)$")
_DIGITS = r"\d(?:_?\d)*"
_FLOAT = re.compile(rf"^[+-]?(?:(?:(?:{_DIGITS})?\.{_DIGITS}|{_DIGITS}\.)(?:[eE][+-]?{_DIGITS})?|{_DIGITS}[eE][+-]?{_DIGITS})$")
_SPECIAL_FLOAT = re.compile(r"^[+-]?(?:inf|nan)$", re.I)
_PLAIN_ESCAPES = "\\()[]{}:=, \t"


@dataclass(frozen=True)
class Override:
    prefix: str          # '', '+', '++' or '~'
    key: str             # dotted key or config group (``model/llama``)
    package: str | None  # ``key@package``
    value: Any           # parsed value; None with ``has_value`` False for ``~key``
    has_value: bool

    @property
    def is_group(self) -> bool:
        """A config-group choice (``model/llama=x``, ``model@pkg=x``): no single config key."""
        return "/" in self.key or self.package is not None


def parse_override(token: str) -> Override | None:
    """The override ``token`` states, or None when it is not one (``--flag``, ``file.py``)."""
    m = _KEY.match(token)
    if not m:
        return None
    prefix, key, package, eq, raw = m.groups()
    prefix = prefix or ""
    if eq is None:
        return Override(prefix, key, package, None, False) if prefix == "~" else None
    return Override(prefix, key, package, value(raw), True)


def _trim(text: str) -> str:
    """Blanks around a value go, except after a final ':' (Hydra's lexer keeps ``x: `` as written)
    and an escaped one (``x\\ `` ends in a space)."""
    t = text.lstrip(" \t")
    r = t.rstrip(" \t")
    if r.endswith(":"):
        return t
    if r != t and (len(r) - len(r.rstrip("\\"))) % 2 == 1:
        return t[:len(r) + 1]
    return r


def value(text: str) -> Any:
    """A Hydra value (element, list or dict) as plain data."""
    t = _trim(text)
    if not t:
        return ""
    if t[0] in "[{" and t[-1] == ("]" if t[0] == "[" else "}"):
        items = _split(t[1:-1])
        if items is not None:
            if t[0] == "[":
                return [value(x) for x in items] if items != [""] else []
            out: dict[Any, Any] = {}
            for item in items:
                if item == "" and len(items) == 1:
                    return {}
                k, sep, v = item.partition(":")
                if not sep:
                    return t
                out[_plain(k.strip())] = value(v)
            return out
    if len(t) >= 2 and t[0] in "'\"" and t[-1] == t[0]:
        quoted = _unquote(t)
        if quoted is not None:
            return quoted
    return _primitive(t)


def _primitive(t: str) -> Any:
    low = t.lower()
    if low == "null":
        return None
    if low in ("true", "false"):
        return low == "true"
    if _INT.match(t):
        digits = t.replace("_", "")
        return int(digits) if len(digits) <= MAX_INT_DIGITS else t  # an absurd number stays text
    if _FLOAT.match(t) or _SPECIAL_FLOAT.match(t):
        return float(t.replace("_", ""))
    return _plain(t)


def _plain(t: str) -> str:
    """An unquoted string: ``\\,`` and the grammar's other escapes give the character."""
    if "\\" not in t:
        return t
    return re.sub(r"\\(.)", lambda m: m.group(1) if m.group(1) in _PLAIN_ESCAPES else m.group(0), t)


def _unquote(t: str) -> str | None:
    """A quoted string: an odd run of backslashes before the quote character escapes it (and
    halves); other backslashes are kept. None when a quote inside is not escaped."""
    q, body, out, i = t[0], t[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\":
            j = i
            while j < len(body) and body[j] == "\\":
                j += 1
            run = j - i
            if j < len(body) and body[j] == q:
                if run % 2 == 0:
                    return None
                out.append("\\" * (run // 2) + q)
                i = j + 1
                continue
            if j == len(body):  # backslashes before the closing quote
                if run % 2:
                    return None
                out.append("\\" * (run // 2))
                i = j
                continue
            out.append(body[i:j])
            i = j
        elif body[i] == q:
            return None
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _split(inner: str) -> list[str] | None:
    """Top-level comma-separated items (quotes, brackets and escapes respected); None when the
    brackets do not balance."""
    items, depth, cur, quote, i = [], 0, [], None, 0
    while i < len(inner):
        ch = inner[i]
        if ch == "\\" and i + 1 < len(inner):
            cur.append(inner[i:i + 2])
            i += 2
            continue
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            items.append(_trim("".join(cur)))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    if depth or quote:
        return None
    items.append(_trim("".join(cur)))
    return items
