"""Code regions of other document formats, read as the Markdown fences they mean.

Answers arrive as man pages, org-mode notes, LaTeX reports, wiki pages and forum posts; each marks
code its own way (roff ``.nf``/``.fi``, ``#+BEGIN_SRC yaml``, ``\\begin{lstlisting}``, ``{code:yaml}``,
``<syntaxhighlight lang="yaml">``, ``@example``, ``{{{ … }}}``, ``[code]``, ``.. code-block:: yaml``).
Read line by line as prose, the settings of such a block lose their grouping: one option's lines
become separate sentences, each judged on its own. :func:`as_fences` turns each marker line into a
Markdown fence line, so the block is read like any fenced block, with its language where the marker
names one. Line numbers are kept (one marker line becomes one fence line; an indented reST block
is closed on the blank line after it), so every location still points at the answer's own line.
Markers inside an existing Markdown fence are left alone (a Markdown answer quoting an org file).
"""

from __future__ import annotations

import re

from skill_tools.config.pysource import parse
from skill_tools.evaluation.lua_tables import is_lua_module

_MD_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")

#: (opening line, closing line); group "lang" of the opening names the language where it can.
_PAIRS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(r"^\.(?:nf|EX)\s*$"), re.compile(r"^\.(?:fi|EE)\s*$")),  # roff
    (re.compile(r"^\s*#\+begin_(?:src|example)(?:\s+(?P<lang>[\w+-]+))?.*$", re.I),
     re.compile(r"^\s*#\+end_(?:src|example)\s*$", re.I)),  # org-mode
    (re.compile(r"^\s*\\begin\{(?:verbatim|lstlisting|minted|Verbatim)\}(?:\[[^\]]*\])?(?:\{(?P<lang>[\w+-]+)\})?\s*$"),
     re.compile(r"^\s*\\end\{(?:verbatim|lstlisting|minted|Verbatim)\}\s*$")),  # LaTeX
    (re.compile(r"^\s*\{(?:code|noformat)(?::(?:language=)?(?P<lang>[\w+-]+))?[^}]*\}\s*$"),
     re.compile(r"^\s*\{(?:code|noformat)\}\s*$")),  # Confluence / Jira wiki
    (re.compile(r"^\s*<(?:syntaxhighlight|source)(?:\s+lang=[\"']?(?P<lang>[\w+-]+)[\"']?)?[^>]*>\s*$", re.I),
     re.compile(r"^\s*</(?:syntaxhighlight|source)>\s*$", re.I)),  # MediaWiki
    (re.compile(r"^\s*<(?:code|file)\s+(?P<lang>[\w+-]+)(?=[\s>])[^>=]*>\s*$", re.I), re.compile(r"^\s*</(?:code|file)>\s*$", re.I)),  # DokuWiki
    (re.compile(r"^\s*<(?:pre|code)(?:\s+class=[\"']?(?:language-)?(?P<lang>[\w+-]+)[\"']?)?[^>]*>\s*$", re.I),
     re.compile(r"^\s*</(?:pre|code)>\s*$", re.I)),  # HTML
    (re.compile(r"^@(?:example|smallexample|verbatim|lisp)\s*$"),
     re.compile(r"^@end\s+(?:example|smallexample|verbatim|lisp)\s*$")),  # Texinfo
    (re.compile(r"^\s*\{\{\{\s*(?:#!(?P<lang>[\w+-]+))?\s*$"), re.compile(r"^\s*\}\}\}\s*$")),  # Trac / MoinMoin
    (re.compile(r"^\s*\[code(?:=(?P<lang>[\w+-]+))?\]\s*$", re.I), re.compile(r"^\s*\[/code\]\s*$", re.I)),  # BBCode
    # an agent transcript's tool call: <tool_call name="write_file" path="graphs.yaml"> … </tool_call>
    (re.compile(r"^\s*<(?:tool_call|tool_use|function_call)\b(?:[^>]*?\bpath=[\"'][^\"']*\.(?P<lang>ya?ml|py|sh|json|toml)[\"'])?[^>]*>\s*$"),
     re.compile(r"^\s*</(?:tool_call|tool_use|function_call)>\s*$")),
    (re.compile(r"^=begin\s+(?:code|text)\s*(?P<lang>[\w+-]+)?\s*$"), re.compile(r"^=end\s+(?:code|text)\s*$")),  # POD
]
#: A shell script's interpreter line: ``#!/usr/bin/env bash``, ``#!/bin/sh``; a xonsh script reads as shell (its
#: launch lines are shell, its lists of ``"k=v"`` strings Hydra tokens). A Python script is read as unfenced code.
_SHEBANG = re.compile(r"#!\s*(?:/usr)?(?:/local)?/bin/(?:env\s+(?:-S\s+)?)?(bash|sh|zsh|ksh|dash|xonsh)\b")
#: reST: a directive, a blank line, then an indented block that ends at the first line indented less.
_RST = re.compile(r"^(\s*)\.\.\s+(?:code-block|code|sourcecode)::\s*(?P<lang>[\w+-]+)?\s*$")


#: A man page (``.TH``/``.SH`` requests) and the roff escapes its text is written with.
_ROFF = re.compile(r"^\.(?:TH|SH)\s", re.M)
_ROFF_ESCAPES = {r"\(dq": '"', r"\(aq": "'", r"\(en": "\u2013", r"\(em": "\u2014", r"\-": "-", r"\(ti": "~",
                 r"\(lq": '"', r"\(rq": '"', r"\e": "\\", r"\&": ""}


def as_fences(text: str) -> str:
    """``text`` with other formats' code markers as Markdown fence lines (same line count); a man
    page's escapes (``\\(dq``, ``\\-``, ``\\(en``) as the characters they print. A whole answer
    that is one shell script (a ``#!`` line and no fence) becomes one fenced block: its ``#!`` line is the
    opening fence and a closing fence line is added at its end."""
    if _ROFF.search(text):
        for escape, char in _ROFF_ESCAPES.items():
            text = text.replace(escape, char)
    lines = text.split("\n")
    script = _SHEBANG.match(text.lstrip("\n"))
    if script and not any(_MD_FENCE.match(ln) for ln in lines):  # the whole answer is one script
        at = next(k for k, ln in enumerate(lines) if ln.strip())
        lines[at] = "```bash"
        return "\n".join(lines + ["```"])
    if not any(_MD_FENCE.match(ln) for ln in lines) and is_lua_module(text):  # the whole answer is one Lua module
        at = next(k for k, ln in enumerate(lines) if ln.strip())
        head = ["```lua"] if lines[at].lstrip().startswith("--") else ["```lua", lines[at]]  # a header comment gives its line
        return "\n".join(lines[:at] + head + lines[at + 1:] + ["```"])
    out = list(lines)
    i, in_md = 0, False
    while i < len(lines):
        line = lines[i]
        if _MD_FENCE.match(line):
            in_md = not in_md
            i += 1
            continue
        if in_md:
            i += 1
            continue
        j = _pair_end(lines, i, out) or _rst_end(lines, i, out) or _tool_result_end(lines, i, out)
        i = j if j else i + 1
    return "\n".join(out)


_RESULT = (re.compile(r"^\s*<(tool_result|function_result|tool_output)\b[^>]*>"), re.compile(r"</(tool_result|function_result|tool_output)>\s*$"))


def _tool_result_end(lines: list[str], i: int, out: list[str]) -> int | None:
    """A tool's output in an agent transcript (``<tool_result …>`` … ``</tool_result>``): what a
    command printed, never settings the answer asks for; its lines are left out (blank)."""
    if not _RESULT[0].match(lines[i]):
        return None
    for j in range(i, min(len(lines), i + 400)):
        if _RESULT[1].search(lines[j]):
            out[i:j + 1] = [""] * (j + 1 - i)
            return j + 1
    return None


def _pair_end(lines: list[str], i: int, out: list[str]) -> int | None:
    for opening, closing in _PAIRS:
        m = opening.match(lines[i])
        if not m:
            continue
        for j in range(i + 1, len(lines)):
            if closing.match(lines[j]):
                out[i] = "```" + (m.groupdict().get("lang") or "")
                out[j] = "```"
                return j + 1
            if opening.match(lines[j]) or _MD_FENCE.match(lines[j]):
                break  # another opening first: not a pair
        return None
    return None


def _rst_end(lines: list[str], i: int, out: list[str]) -> int | None:
    m = _RST.match(lines[i])
    if not m or i + 2 >= len(lines) or lines[i + 1].strip():
        return None
    base = len(m.group(1))
    j = i + 2
    while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) > base:
        j += 1
    if j == i + 2:
        return None
    out[i] = "```" + (m.group("lang") or "")
    if j < len(lines) and not lines[j].strip():
        out[j] = "```"
    elif j == len(lines):
        out.append("```")
    else:
        out[i] = lines[i]  # the block is followed directly by text: no line to close it on
        return None
    return j + 1


#: A workflow template's interpolation: Groovy/Nextflow/shell ``${params.recipe}``, WDL ``~{size}``,
#: Jinja/Helm ``{{ cfg }}``. Python written inside such a template (a heredoc of a Nextflow process,
#: a Jinja-rendered launcher) holds them where the template fills in a value.
#: A template's interpolation (``${params.recipe}``, ``{{ recipe }}``) or a placeholder an answer
#: leaves for the user to fill in (``cfg = <your Qwen3-30B-A3B pretrain recipe>()``).
_INTERPOLATION = re.compile(r"[$~]\{[^{}\n]*\}|\{\{[^{}\n]*\}\}|<[A-Za-z][\w .,/'-]{0,80}>")


def untemplated_python(text: str) -> str:
    """``text`` as Python, with a template's interpolations read as a value (the name
    ``TEMPLATE_VALUE``) where they keep it from parsing: ``cfg = ${params.recipe}()`` is a recipe
    call whose name the template fills in, as ``cfg = <your recipe>()`` is one the user fills in. Text that parses, or has none, is returned unchanged."""
    if not _INTERPOLATION.search(text):
        return text
    try:
        parse(text)  # parsed, never run
        return text
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _INTERPOLATION.sub("TEMPLATE_VALUE", text)
