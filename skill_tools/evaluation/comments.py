"""The comments of a config block as sentences of prose: a comment may go on over the next comment
line ("# Alternative: keep --recompute-granularity full and use --cuda-graph-impl full_iteration /
# together with --no-check-for-nan-in-loss-and-grad."), so consecutive full-line comments are one
text; a trailing comment is its own. :mod:`locate` reads them like a line of prose.
"""

from __future__ import annotations

import re
from typing import Iterator

_COMMENT = re.compile(r"(?:^|\s)#+\s?(.{8,})$")


def comment_sentences(body: str) -> Iterator[tuple[int, str]]:
    """(first line offset, text) of each run of consecutive full-line comments (a sentence may go on
    over the next comment line), and of each trailing comment."""
    run: list[str] = []
    start = 0
    for n, text in enumerate(body.split("\n") + [""]):
        m = _COMMENT.search(text)
        whole = m is not None and not text[:m.start()].strip()
        if whole:
            if not run:
                start = n
            run.append(m.group(1).strip())
            continue
        if run:
            yield start, " ".join(run)
            run = []
        if m:
            yield n, m.group(1)
