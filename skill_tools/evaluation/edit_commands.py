"""In-place edits an answer gives as commands: ``sed -i 's/old/new/' f``, ``perl -pi -e 's/…/…/' f``
and ``yq -i '.model.cuda_graph_impl = "local"' f``. What they write into the user's file is config the
answer recommends, as a here-document's body is (:mod:`embedded`); the command line itself is not a
training run.

A substitution's new side is its replacement with the back-references (``\\1``, ``$1``, ``&``) filled
in from the literal text of the pattern's groups: ``s/^\\(\\s*cuda_graph_impl:\\).*/\\1 local/`` writes
``cuda_graph_impl: local``. Its old side, when the pattern is a whole literal setting
(``s/cuda_graph_impl: none/…/``), is what the edit removes. A pattern that is not literal enough to
name what it matches (a character class, an alternation) gives no old side, and a replacement
whose back-reference cannot be filled gives nothing. ``yq`` assignments (``.a.b = v``, joined by
``|``) are read as ``a.b=v`` overrides. Nothing here is ever run: the commands are tokenised with
:mod:`shlex` and the scripts parsed by hand.
"""

from __future__ import annotations

import re
import shlex

_SED = frozenset({"sed", "gsed"})
_GROUP_BASIC = re.compile(r"\\\((.*?)\\\)")  # sed's basic regex: \( … \)
_GROUP_EXT = re.compile(r"(?<!\\)\(((?:[^()\\]|\\.)*)(?<!\\)\)")  # perl / sed -E: ( … )
#: Regex pieces that match "whatever is there" and leave no literal text behind.
_WILD = re.compile(r"\^|\$$|\\s[*+]|\[\[:space:\]\][*+]|\[ \\t\][*+]| [*+]|\.\*|\.\+|\\b")
_NOT_LITERAL = re.compile(r"(?<!\\)[\[\]|{}?]|\\[dwDWS]")
_YQ_ASSIGN = re.compile(r"^\s*((?:\.[A-Za-z_][\w-]*)+)\s*=\s*(.+?)\s*$")
MAX_EDITS = 50  # edits read per answer block, and substitutions per command
MAX_SCRIPT = 2000  # characters of one substitution: longer is no settings edit
MAX_SPAN = 40  # lines one quoted edit script may span


def _literal(regex: str) -> str | None:
    """The text a simple pattern matches (wildcards dropped, escapes undone); None when it is not
    literal enough to say."""
    text = _WILD.sub("", regex)
    if _NOT_LITERAL.search(text) or re.search(r"(?<!\\)[.*+](?![\w\s])", text.replace("\\.", "")):
        return None
    return re.sub(r"\\(.)", r"\1", text)


def _substitution(script: str, extended: bool) -> tuple[str | None, str] | None:
    """(old literal or None, new text) of one ``s<d>pattern<d>replacement<d>flags`` command."""
    script = script.strip()
    if len(script) < 4 or script[0] != "s" or script[1].isalnum() or script[1] in "\\\n ":
        return None
    d = script[1]
    parts, cur, i = [], "", 2
    while i < len(script) and len(parts) < 2:
        ch = script[i]
        if ch == "\\" and i + 1 < len(script):
            cur += ch + script[i + 1] if script[i + 1] != d else d
            i += 2
            continue
        if ch == d:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    if len(parts) != 2:
        return None
    pattern, repl = parts
    groups = [m.group(1) for m in (_GROUP_EXT if extended else _GROUP_BASIC).finditer(pattern)]
    literals = [_literal(g) for g in groups]
    flat = (_GROUP_EXT if extended else _GROUP_BASIC).sub(lambda m: m.group(1), pattern)
    whole = _literal(flat)

    def fill(m: re.Match[str]) -> str:
        ref = m.group(1) or m.group(2) or m.group(3)
        if ref == "&":
            if whole is None:
                raise ValueError
            return whole
        n = int(ref) - 1
        if n >= len(literals) or literals[n] is None:
            raise ValueError
        return literals[n] or ""

    try:
        new = re.sub(r"\\(\d)|\$\{?(\d)\}?|(?<!\\)(&)", fill, repl)
    except ValueError:
        return None
    new = new.replace("\\n", "\n").replace("\\&", "&").replace("\\/", "/")
    return whole, new


def _sed_scripts(tokens: list[str]) -> tuple[list[str], bool]:
    scripts: list[str] = []
    extended = False
    positional: list[str] = []
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        if tok in ("-e", "--expression") and k + 1 < len(tokens):
            scripts.append(tokens[k + 1])
            k += 2
            continue
        if tok.startswith("--expression="):
            scripts.append(tok.split("=", 1)[1])
        elif tok in ("-E", "-r", "--regexp-extended") or (tok.startswith("-") and not tok.startswith("--")
                                                         and set(tok[1:].split(".")[0]) & {"E", "r"}):
            extended = True
        elif not tok.startswith("-"):
            positional.append(tok)
        k += 1
    if not scripts and positional:
        scripts.append(positional[0])
    return [s for script in scripts for s in script.replace("\n", ";").split(";")], extended


def _perl_scripts(tokens: list[str]) -> list[str]:
    out = []
    for k, tok in enumerate(tokens):
        if tok.startswith("-") and not tok.startswith("--") and tok.rstrip("0123456789.bak").endswith("e") \
                and k + 1 < len(tokens):
            out.append(tokens[k + 1])
    return [s for script in out for s in script.split(";")]


def _yq_overrides(tokens: list[str]) -> list[str]:
    expr = next((t for t in tokens if not t.startswith("-") and t not in ("e", "eval", "eval-all", "ea")), "")
    out = []
    for part in expr.split("|"):
        m = _YQ_ASSIGN.match(part)
        if m:
            value = m.group(2).strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            out.append(f"{m.group(1)[1:]}={value.replace(' ', '')}" if value.startswith("[") else
                       f"{m.group(1)[1:]}={value}")
    return out


def edit_commands(body: str) -> tuple[str, list[tuple[str, str, int]]]:
    """Shell text without its in-place edit commands, and what they write: ``("new", text, line)``
    (a replacement, or ``key=value`` lines for ``yq``), ``("old", text, line)`` (a literal pattern
    the substitution removes)."""
    lines = body.split("\n")
    found: list[tuple[str, str, int]] = []
    for i, line in enumerate(lines):
        if not re.search(r"(?<![\w-])(?:g?sed|perl|yq)\s", line) or len(found) >= MAX_EDITS:
            continue
        tokens, last = _command_tokens(lines, i)
        if tokens is None:
            continue
        starts = [k for k, t in enumerate(tokens) if t.rsplit("/", 1)[-1] in _SED | {"perl", "yq"}]
        if not starts:
            continue
        for n, k in enumerate(starts):
            prog = tokens[k].rsplit("/", 1)[-1]
            args = tokens[k + 1:starts[n + 1] if n + 1 < len(starts) else len(tokens)]
            args = args[:next((j for j, t in enumerate(args) if t in ("&&", "||", ";", "|")), len(args))]
            if prog == "yq":
                overrides = _yq_overrides(args)
                if overrides:
                    found.append(("new", "\n".join(overrides), i))
                continue
            scripts, extended = (_sed_scripts(args) if prog in _SED else (_perl_scripts(args), True))
            for script in scripts[:MAX_EDITS]:
                sub = _substitution(script, extended) if len(script) <= MAX_SCRIPT else None
                if sub is None:
                    continue
                old, new = sub
                if old and re.search(r"[:=]\s*\S|(?:^|\s)--?\w", old):
                    found.append(("old", old.strip(), i))
                if new.strip():
                    found.append(("new", new.strip(), i))
        for j in range(i, last + 1):
            lines[j] = ""
    return "\n".join(lines), found


def _command_tokens(lines: list[str], i: int) -> tuple[list[str] | None, int]:
    """The tokens of the command that starts on line ``i`` and the index of its last line: a quoted
    script may span lines (``yq -i '<newline> .a = 1 |<newline> .b = 2<newline>' f``), so lines are
    joined until the quotes close (at most ``MAX_SPAN`` of them)."""
    text = lines[i]
    for j in range(i, min(len(lines), i + MAX_SPAN)):
        if j > i:
            text += "\n" + lines[j]
        try:
            return shlex.split(text, comments=True), j
        except ValueError:
            continue
    return None, i
