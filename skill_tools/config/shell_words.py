"""Shell words with their spans, and what a launch script's variables expand to.

The launch-script reader and editor share this view of a script: :func:`scan` splits the text
into words and separators with character spans (quotes, escapes, continuations, comments,
``$(...)`` and arrays handled), :func:`variables` gives what each assigned variable expands to
(``ARGS=( --num-layers 96 ... )``, ``options="--num-layers 48 ..."``) and
:func:`is_script_word` finds the word that names the Python script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_OPERATORS = ";&|"


@dataclass(frozen=True)
class Word:
    """A shell word (``kind='word'``) or a separator (``'op'``: newline, ``;``, ``&&``, ``|``,
    ``(``, ``)``) with its span in the text; ``value`` is the word with quotes removed."""

    start: int
    end: int
    raw: str
    value: str
    kind: str = "word"


def scan(text: str) -> list[Word]:
    """Shell words and separators with spans: quotes, backslash escapes, ``\\``-newline
    continuations, ``#`` comments, ``$(...)``/``${...}`` and ``NAME=( ... )`` arrays."""
    out: list[Word] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r":
            i += 1
        elif ch == "\\" and text.startswith("\n", i + 1):
            i += 2  # continuation: whitespace
        elif ch == "\n":
            out.append(Word(i, i + 1, "\n", "\n", "op"))
            i += 1
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif ch in _OPERATORS or ch in "()":
            j = i + 1
            while j < n and text[j] == ch and ch in "&|;":
                j += 1
            out.append(Word(i, j, text[i:j], text[i:j], "op"))
            i = j
        else:
            j, value = _word(text, i)
            out.append(Word(i, j, text[i:j], value))
            i = j
    return out


def _word(text: str, i: int) -> tuple[int, str]:
    """End of the word starting at ``i`` and its unquoted value."""
    n, value, depth = len(text), [], 0
    while i < n:
        ch = text[i]
        if depth == 0 and (ch in " \t\r\n" or ch in _OPERATORS or ch == ")"):
            break
        if depth == 0 and ch == "(":
            if value and value[-1] == "=":  # NAME=( starts an array: the word ends before it
                break
            if not value:
                break
        if ch == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                if depth == 0:
                    break
                i += 2
                continue
            value.append(text[i + 1])
            i += 2
        elif ch == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            value.append(text[i + 1:j])
            i = j + 1
        elif ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    value.append(text[j + 1])
                    j += 2
                    continue
                value.append(text[j])
                j += 1
            i = j + 1
        elif ch == "$" and i + 1 < n and text[i + 1] in "({":
            depth += 1
            value.append(text[i:i + 2])
            i += 2
        elif depth and ch in "({":
            depth += 1
            value.append(ch)
            i += 1
        elif depth and ch in ")}":
            depth -= 1
            value.append(ch)
            i += 1
        else:
            value.append(ch)
            i += 1
    return i, "".join(value)


_REF = re.compile(r"^\$(?:\{([A-Za-z_]\w*)(?:\[[@*]\])?\}|([A-Za-z_]\w*))$")


def variable_ref(word: str) -> str | None:
    """The variable a word expands (``${ARGS[@]}``, ``${ARGS}``, ``$ARGS``), or None."""
    m = _REF.match(word)
    return (m.group(1) or m.group(2)) if m else None


def variables(text: str, split: bool = True) -> dict[str, list[tuple[str, int]]]:
    """What each variable the script assigns expands to, unquoted, as (word, line) pairs:
    arrays (``A=( ... )``, ``A+=( ... )``, elements word-split as ``${A[@]}`` does, so
    ``"--fp8-format hybrid"`` gives two words) and strings (``options="--num-layers 48 ..."``),
    with references to earlier variables expanded. Both branches of an ``if`` count: the
    flags of either are flags of the script. ``split=False``: each array element stays one word, as
    a quoted ``"${A[@]}"`` passes it (``--step-batch-size-schedule "0:16 2.4B:320"`` keeps its value)."""
    words = scan(text)
    found: dict[str, list[tuple[str, int]]] = {}

    def line_of(w: Word) -> int:
        return text.count("\n", 0, w.start) + 1

    def expand(w: Word) -> list[tuple[str, int]]:
        name = variable_ref(w.value)
        if name is not None and name in found:
            return list(found[name])
        return [(part, line_of(w)) for part in (w.value.split() if split else [w.value])]

    for n, w in enumerate(words):
        m = re.match(r"^([A-Za-z_]\w*)(\+?)=", w.raw) if w.kind == "word" else None
        if not m:
            continue
        name, append = m.group(1), bool(m.group(2))
        nxt = words[n + 1] if n + 1 < len(words) else None
        if w.raw == m.group(0) and nxt is not None and nxt.raw == "(" and nxt.start == w.end:
            items: list[tuple[str, int]] = []
            for item in words[n + 2:]:
                if item.raw == ")":
                    break
                if item.kind == "word":
                    items.extend(expand(item))
            found[name] = (found.get(name, []) if append else []) + items
        else:
            value = w.value[len(m.group(0)):]
            if "\n" in text[w.start:w.end] or len(value.split()) > 1 or value.startswith("-"):
                parts: list[tuple[str, int]] = []
                line = line_of(w)
                for part in value.split():
                    ref = variable_ref(part)
                    parts.extend(found[ref] if ref in found else [(part, line)])
                found[name] = (found.get(name, []) if append else []) + parts
            else:
                value = _with_default(value, found)
                found[name] = [(value, line_of(w))] if value else []
    return found


_DEFAULTED = re.compile(r"^\$\{([A-Za-z_]\w*):?[-=]([^}]*)\}$")


def _with_default(value: str, found: Mapping[str, list[tuple[str, int]]]) -> str:
    """``SCOPE=${SCOPE:-block}``: the variable's earlier value in the script, else the default the
    expansion names (what the script runs with when the caller sets nothing)."""
    m = _DEFAULTED.match(value)
    if not m:
        return value
    earlier = found.get(m.group(1))
    return earlier[0][0] if earlier and len(earlier) == 1 else m.group(2).strip("'\"")


def is_script_word(word: str, found: Mapping[str, list[tuple[str, int]]]) -> bool:
    """Whether a word names the Python script: ``pretrain_gpt.py`` or ``$VAR`` set to one."""
    name = variable_ref(word)
    if name is None:
        return word.endswith(".py") and not _ENV_ASSIGN.match(word)
    value = found.get(name, [])
    return len(value) == 1 and value[0][0].endswith(".py")


def module_after_m(words: list[Word], n: int) -> bool:
    """``python -m pkg.module`` / ``torchrun ... -m pkg.module``: the module is the script."""
    if n == 0 or words[n - 1].value != "-m":
        return False
    for w in reversed(words[:n - 1]):
        if w.kind == "op":
            return False
        if w.value.endswith(".py"):
            return False
        if w.value.rsplit("/", 1)[-1] in ("python", "python3", "torchrun"):
            return True
    return False
