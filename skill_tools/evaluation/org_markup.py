"""Org-mode inline markup, read as the Markdown code spans it stands for.

An answer written as an Org document (``#+TITLE:``, ``#+BEGIN_SRC``, ``* Heading``) marks code with
``=verbatim=`` and ``~code~`` instead of backticks: "Set =rl_persist_cuda_graphs= only when graphs
are built" names a key, it does not assign "only" to it. :func:`org_verbatim` turns those spans into
backtick spans of the same length (every line and column stays where it is), outside source blocks,
and leaves any other text unchanged.
"""

from __future__ import annotations

import re

_ORG_DOC = re.compile(r"^#\+(?:TITLE|BEGIN_SRC|begin_src|title|AUTHOR|author|OPTIONS|options):?", re.M)
_BEGIN, _END = re.compile(r"^\s*#\+begin_(?:src|example)\b", re.I), re.compile(r"^\s*#\+end_(?:src|example)\b", re.I)
#: ``=x=`` / ``~x~`` between non-word characters, on one line, not starting or ending with a blank.
_SPAN = re.compile(r"(?<![\w=~`])([=~])(?=\S)([^\n=~`]*?\S)\1(?![\w=~`])")


def org_verbatim(text: str) -> str:
    """``text`` with its Org verbatim and code spans as backtick spans, when it is an Org document."""
    if not _ORG_DOC.search(text):
        return text
    out, in_src = [], False
    for line in text.split("\n"):
        if _BEGIN.match(line) or _END.match(line):
            in_src = bool(_BEGIN.match(line))
            out.append(line)
            continue
        out.append(line if in_src else _SPAN.sub(lambda m: "`" + m.group(2) + "`", line))
    return "\n".join(out)
