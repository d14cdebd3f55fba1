"""The sides of a diff an answer pastes: a unified diff (``-``/``+`` lines, file headers, hunks), bare
``-``/``+`` lines, and git's word diff (``[-removed-]`` / ``{+added+}`` inside a line). The new side is
what the answer asks for; the old side is what it removes. Text only; nothing is applied.
"""

from __future__ import annotations

import re
import textwrap

_DIFF_HEAD = re.compile(r"^(?:--- |\+\+\+ |@@(?:\s|$))", re.M)
DIFF_FILE = re.compile(r"^(?=--- \S|diff --git )", re.M)
_DIFF_ADD = re.compile(r"^\+(?!\+\+ )\s*\S", re.M)


def looks_like_diff(body: str) -> bool:
    """A unified diff, or bare ``-``/``+`` lines: a YAML list never starts a line with ``+``."""
    return bool(_DIFF_HEAD.search(body)) or (bool(_DIFF_ADD.search(body)) and bool(re.search(r"^-\S", body, re.M)))


def diff_sides(body: str) -> tuple[str, str, bool]:
    """(the new file, the old file, whether any line was removed): context lines belong to both
    sides, so a ``+`` line keeps its YAML parent and an unchanged key is not read as rejected. A
    hunk header's context that is a YAML section key (``@@ -14,9 +14,13 @@ model:``) is that parent
    of the hunk's indented lines."""
    new: list[str] = []
    old: list[str] = []
    removed = False
    lines = body.split("\n")
    for i, ln in enumerate(lines):
        if ln == "-- ":  # git format-patch's signature: the patch ends here
            break
        section = _HUNK_SECTION.match(ln)
        if section and section.group(1) not in new and i + 1 < len(lines) and re.match(r"^[ +-][ \t]+\S", lines[i + 1]):
            new.append(section.group(1))  # "@@ -14,9 +14,13 @@ model:": the hunk's indented lines sit under model:
            old.append(section.group(1))
            continue
        if ln.startswith(("+++", "---", "@@", "diff ", "index ")):
            continue
        if ln.startswith("+"):
            new.append(ln[1:])
        elif ln.startswith("-"):
            old.append(ln[1:])
            removed = True
        else:
            ctx = ln[1:] if ln.startswith(" ") else ln
            if _WORD_DIFF.search(ctx):  # git diff --word-diff=plain: [-removed-] and {+added+} inside the line
                removed = removed or "[-" in ctx
                ctx_new, ctx_old = _WORD_DEL.sub("", _WORD_ADD.sub(r"\1", ctx)), _WORD_ADD.sub("", _WORD_DEL.sub(r"\1", ctx))
                new.append(ctx_new if ctx_new.strip() else "")
                old.append(ctx_old if ctx_old.strip() else "")
                continue
            new.append(ctx)
            old.append(ctx)
    return textwrap.dedent("\n".join(new)), textwrap.dedent("\n".join(old)), removed


#: A hunk header whose context is a YAML section's key (git shows the line above the hunk there).
_HUNK_SECTION = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ([A-Za-z_][\w.-]*:)\s*$")
_WORD_DEL, _WORD_ADD = re.compile(r"\[-(.*?)-\]"), re.compile(r"\{\+(.*?)\+\}")
_WORD_DIFF = re.compile(r"\[-.*?-\]|\{\+.*?\+\}")
