"""Config embedded in other text: the hunk of a coding agent's edit result (Claude Code's
``⎿  Updated f.yaml with 2 additions``), and the shell script of a CI step (``run: |`` in a GitHub
Actions / GitLab YAML) whose launch command carries the overrides. Only located here; the
readers parse what is found, nothing is run.
"""

from __future__ import annotations

import re
import textwrap
from typing import Iterator

from skill_tools.config import pysource
from skill_tools.evaluation.edit_commands import edit_commands

#: A coding agent's edit result line (Claude Code): the indented hunk below it is the change it made.
EDIT_RESULT = re.compile(r"^\s*⎿\s+(?:Updated|Added|Wrote|Edited|Modified)\b")


_LINE_NO = re.compile(r"^\s*\d+ ")


def hunk_end(lines: list[str], i: int) -> int:
    """The end of the indented hunk below the edit result line ``lines[i]``."""
    j = i + 1
    while j < len(lines) and lines[j].strip() and lines[j][:1].isspace():
        j += 1
    return j


def transcript_hunk(hunk: list[str]) -> str:
    """The hunk as a unified diff: its ``+``/``-`` signs stand in one column, context lines have a
    blank there."""
    if all(_LINE_NO.match(ln) for ln in hunk):  # "  41 -    cfg.x = 1": the file's line numbers first
        hunk = [_LINE_NO.sub("", ln, count=1) for ln in hunk]
        return "\n".join(ln if ln[:1] in "+-" else " " + ln[1:] for ln in hunk)
    signs = [ln for ln in hunk if ln.lstrip()[:1] in "+-" and ln.strip() not in ("+", "-")]
    col = min((len(ln) - len(ln.lstrip()) for ln in signs), default=min(len(ln) - len(ln.lstrip()) for ln in hunk))
    out = []
    for ln in hunk:
        head, rest = ln[:col], ln[col:]
        if not head.strip() and rest[:1] in "+-":
            out.append(rest)
        else:
            out.append(" " + ln[col + 1:] if not ln[:col + 1].strip() else " " + ln.lstrip())
    return "\n".join(out)


#: ``run: |`` / ``script: >-`` / ``command: |``: a YAML block scalar holding a shell script.
_RUN_KEY = re.compile(r"^(\s*)(?:-\s+)?(?:run|script|command|cmd|entrypoint)\s*:\s*[|>][-+]?\s*$")


def run_scripts(body: str) -> Iterator[tuple[str, int]]:
    """The shell scripts of a YAML body's block scalars under run/script/command keys, with the
    0-based line of each script's first line."""
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        m = _RUN_KEY.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        indent = len(m.group(1))
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            j += 1
        script = textwrap.dedent("\n".join(lines[i + 1:j]))
        if script.strip():
            yield script, i + 1
        i = j


_NUMBERED = re.compile(r"^\d+[:-]")


def numbered_listing(body: str) -> str:
    """A listing whose every line starts with its line number (``grep -n`` output: ``41:    x = 1``)
    without the numbers, dedented; any other body unchanged."""
    lines = [ln for ln in body.split("\n") if ln.strip()]
    if len(lines) < 2 or not all(_NUMBERED.match(ln) for ln in lines):
        return body
    return textwrap.dedent("\n".join(_NUMBERED.sub("", ln, count=1) for ln in body.split("\n")))


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")


def heredocs(body: str) -> tuple[str, list[tuple[str, str, int]]]:
    """Shell text without its here-documents, and what each one writes as config: ``("new", text,
    line)`` for a ``cat > f.yaml <<EOF`` body or the new side of a ``.replace(old, new)`` in a
    ``python - <<EOF`` script, ``("old", text, line)`` for that old side; the same for in-place
    edit commands (:mod:`edit_commands`). The script itself is not config (nor ever run)."""
    lines = body.split("\n")
    kept: list[str] = []
    found: list[tuple[str, str, int]] = []
    i = 0
    while i < len(lines):
        m = _HEREDOC.search(lines[i])
        end = next((j for j in range(i + 1, len(lines)) if m and lines[j].strip() == m.group(2)), None)
        if m is None or end is None:
            kept.append(lines[i])
            i += 1
            continue
        kept.append(lines[i][:m.start()])
        doc = _expanded("\n".join(lines[i + 1:end]), kept)
        if re.search(r"\bpython3?\b", lines[i][:m.start()]):
            for old, new in _replacements(doc):
                found += [("old", _flush(old), i + 1), ("new", _flush(new), i + 1)]
        else:
            found.append(("new", doc, i + 1))
        kept += [""] * (end - i)
        i = end + 1
    body, edits = edit_commands("\n".join(kept))  # sed -i 's/old/new/' f, perl -pi -e …, yq -i '.a.b = v' f
    return body, found + [(side, _flush(text), at) for side, text, at in edits]  # a new line continues an indented one


_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(?:\"([^\"]*)\"|'([^']*)'|(\S*))\s*(?:#.*)?$")
_REF = re.compile(r"\$\{([A-Za-z_]\w*)(?::?-([^}]*))?\}|\$([A-Za-z_]\w*)")


def _expanded(doc: str, script: list[str]) -> str:
    """A here-document's body with the script's variables filled in, as the shell (or ``envsubst``
    on a template) writes it: ``cuda_graph_impl: ${CG_IMPL}`` after ``export
    CG_IMPL="${CG_IMPL:-transformer_engine}"`` is ``cuda_graph_impl: transformer_engine``. A
    variable the script never sets keeps its default (``${X:-v}``) or stays as written."""
    if "$" not in doc:
        return doc
    values: dict[str, str] = {}
    for line in script:
        m = _ASSIGN.match(line)
        if m:
            raw = next(g for g in m.groups()[1:] if g is not None)
            values[m.group(1)] = _REF.sub(lambda r: _value(r, values), raw)
    return _REF.sub(lambda r: _value(r, values), doc)


def _value(ref: re.Match[str], values: dict[str, str]) -> str:
    name = ref.group(1) or ref.group(3)
    if name in values:
        return values[name]
    return ref.group(2) if ref.group(2) is not None else ref.group(0)


def _replacements(code: str) -> list[tuple[str, str]]:
    """``s.replace("old", "new")`` string pairs of a Python script (parsed, never run)."""
    import ast

    try:
        tree = pysource.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [(n.args[0].value, n.args[1].value) for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "replace"
            and len(n.args) >= 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in n.args[:2])]


def _flush(text: str) -> str:
    """A replacement string flush left: its first line continues an indented line of the file, so
    it carries no indentation of its own; the later lines do."""
    first, _, rest = text.partition("\n")
    return first.strip() + ("\n" + textwrap.dedent(rest) if rest else "")
