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


#: A comment that labels the config the lines under it spell out: "# resulting keys:", "# or as Bridge
#: CLI overrides:", "# final config:". Another frontend's spelling ("equivalent") is left to prose.
_RESULT_LABEL = re.compile(r"\b(?:result(?:ing|s)?|final|effective|end state|becomes|keys|overrides|settings|"
                           r"config(?:uration)?)\b[^:]{0,60}:\s*$", re.I)
_NOT_RESULT = re.compile(r"\b(?:don'?t|do not|never|avoid|wrong|old|before|removed?|instead of|not|equivalent|"
                         r"default|currently|today)\b", re.I)
#: A commented config line: ``key.path: value``, ``key=value …``, ``--flag …``.
_CONFIG_LINE = re.compile(r"^(?:(?:[a-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+\s*(?::\s+|=)\S|--[a-z][\w-]+)")


def commented_configs(body: str) -> Iterator[tuple[int, str]]:
    """(offset of the first config line, its text) of each run of comment lines that spell out a
    config under a label saying it is the result ("# resulting keys:" over "#   ddp.x: false"):
    a shell edit script's summary of what its edits leave. Trailing comments are dropped."""
    lines = body.split("\n")
    n = 0
    while n < len(lines):
        m = re.match(r"^\s*#+\s?(.*)$", lines[n])
        if not (m and _RESULT_LABEL.search(m.group(1)) and not _NOT_RESULT.search(m.group(1))):
            n += 1
            continue
        found, k = [], n + 1
        while k < len(lines):
            item = re.match(r"^\s*#+\s*(.*?)\s*$", lines[k])
            text = re.sub(r"\s+#.*$", "", item.group(1)) if item else ""
            text = re.sub(r"(?<=[\w\]])[).,;]+$", "", text)  # "(… or as overrides: a=1 b=2)." ends the sentence
            if not (item and (_CONFIG_LINE.match(text) or (found and found[-1].endswith("\\")))):
                break
            found.append(text)
            k += 1
        if found:
            yield n + 1, "\n".join(found)
        n = max(k, n + 1)
