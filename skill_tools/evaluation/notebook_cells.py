"""Markdown cells of a notebook exported as a Python file, read as the Markdown they are.

Agents answer in notebook exports too: Databricks writes every Markdown line as ``# MAGIC …`` and
separates cells with ``# COMMAND ----------``; Jupytext's percent format opens a Markdown cell with
``# %% [markdown]`` and comments out its lines; an IPython session prefixes each line with ``In [3]:``
or ``   ...:``. Read as Python, the fences and the advice in those cells are comments behind a
prompt; :func:`markdown_cells` removes the comment prefix of each Markdown line and the prompts of a
session (keeping every line where it is, so line numbers still point into the answer) and leaves
code cells alone. :func:`as_markdown` is the answer text every reader and check sees: those cells,
an Org document's inline code spans (:mod:`org_markup`) and a JSON report's Markdown (:mod:`json_reports`).
"""

from __future__ import annotations

import re

from skill_tools.evaluation.json_reports import as_markdown as json_report
from skill_tools.evaluation.org_markup import org_verbatim

_MAGIC = re.compile(r"^# MAGIC ?")
_PERCENT_CELL = re.compile(r"^# %%")
_PERCENT_MARKDOWN = re.compile(r"^# %% \[markdown\]")
_COMMENTED = re.compile(r"^# ?")
_IPYTHON = re.compile(r"^(?:In \[\d*\]|Out\[\d*\]|\s+\.\.\.):\s?")
_MIN_LINES = 3  # a notebook has a few cells; one "# MAGIC" in prose is no export


def markdown_cells(text: str) -> str:
    """``text`` with the comment prefix of its notebook Markdown lines removed (unchanged when it is
    no notebook export)."""
    lines = text.split("\n")
    if sum(1 for ln in lines if _IPYTHON.match(ln)) >= _MIN_LINES:
        lines = [_IPYTHON.sub("", ln) for ln in lines]  # an IPython session: the code and comments it shows
    magic = sum(1 for ln in lines if _MAGIC.match(ln))
    percent = any(_PERCENT_MARKDOWN.match(ln) for ln in lines)
    if magic < _MIN_LINES and not percent:
        return "\n".join(lines)
    out: list[str] = []
    in_markdown = False
    for ln in lines:
        if _MAGIC.match(ln):
            body = _MAGIC.sub("", ln)
            out.append("" if body.strip() in ("%md", "%md-sandbox") else re.sub(r"^%md\s", "", body))
            continue
        if _PERCENT_CELL.match(ln):
            in_markdown = bool(_PERCENT_MARKDOWN.match(ln))
            out.append("")
            continue
        out.append(_COMMENTED.sub("", ln) if in_markdown and ln.startswith("#") else ln)
    return "\n".join(out)


def as_markdown(text: str) -> str:
    """The answer as its readers read it: a JSON report as the Markdown it stands for
    (:mod:`json_reports`, its lines rendered anew), a notebook export's Markdown cells uncommented,
    an Org document's ``=code=`` spans as backtick spans (those two keep every line and column)."""
    return org_verbatim(markdown_cells(json_report(text) or text))
