"""The comments of a config block as sentences of prose: a comment may go on over the next comment
line ("# Alternative: keep --recompute-granularity full and use --cuda-graph-impl full_iteration /
# together with --no-check-for-nan-in-loss-and-grad."), so consecutive full-line comments are one
text; a trailing comment is its own. :mod:`locate` reads them like a line of prose.
"""

from __future__ import annotations

import re
import textwrap
from typing import Iterator

_COMMENT = re.compile(r"(?:^|\s)#+\s?(.{8,})$")
#: A comment line that is a list item ("#   - MBS 1 -> 4: …"): it opens a sentence of its own.
COMMENT_ITEM = re.compile(r"^\s*(?:#+|//|;)\s*(?:[-*•]|\d{1,2}[.)])\s+\S")


def comment_sentences(body: str) -> Iterator[tuple[int, str]]:
    """(first line offset, text) of each run of consecutive full-line comments (a sentence may go on
    over the next comment line; a list item starts a run of its own), and of each trailing comment."""
    run: list[str] = []
    start = 0
    for n, text in enumerate(body.split("\n") + [""]):
        m = _COMMENT.search(text)
        whole = m is not None and not text[:m.start()].strip()
        if whole:
            if run and COMMENT_ITEM.match(text):  # each item of a commented list is its own sentence
                yield start, " ".join(run)
                run = []
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
                           r"config(?:uration)?)\b[^:]{0,60}:\s*$|"
                           r"(?:^|[.!;]\s+)(?:use|set|add|enable|turn on)\b[^:.]{0,60}:\s*$|"  # "Use FSDP's graph mode:"
                           r"\byou (?:can|could|may)\s+(?:instead\s+|also\s+)?use\b[^:.]{0,40}:\s*$|"
                           r"\b(?:variant|alternative|option|fallback)\b[^:]{0,80}:\s*$|"  # "# Megatron-FSDP variant (…):"
                           r"\b(?:fixed|corrected|updated|patched|working)\s+(?:block|config|yaml|section|snippet|version)\b"
                           r"[^:]{0,80}:\s*$", re.I)  # "# Fixed block (paste into configs/train.yaml), dropless MoE:"
#: A label that offers the config as another way ("in Bridge you can instead use:", "Alternative:").
_OFFERED = re.compile(r"\b(?:instead|alternative(?:ly)?|also|variant|option|fallback)\b", re.I)
_NOT_RESULT = re.compile(r"\b(?:don'?t|do not|never|avoid|wrong|old|before|removed?|instead of|not|equivalent|"
                         r"default|currently|today)\b", re.I)
#: A title set between rules: "# --- Megatron-FSDP variant (colleague's job) -----".
_RULED_TITLE = re.compile(r"^\s*#+\s*[-=*_~]{3,}\s+\S.*?\s[-=*_~]{3,}\s*$")
#: "use (this) instead of the ddp block above": the label offers its config in place of another.
_USE_INSTEAD = re.compile(r"\b(?:use|run|take|apply)\s+(?:this\s+|it\s+|these\s+)?instead\s+of\b", re.I)
#: A rule line between a label and its config ("# ------").
_RULE = re.compile(r"^\s*#+\s*[-=*_~]{3,}\s*$")
#: A commented YAML section header ("# ddp:") and a key under it ("#   use_megatron_fsdp: true").
_SECTION = re.compile(r"^[a-z][a-z0-9_]*:$")
_NESTED = re.compile(r"^[a-z][a-z0-9_]*\s*:\s+\S")
#: A commented config line: ``key.path: value``, ``key=value …``, ``--flag …``.
#: A full-line comment and its text.
_COMMENT_TEXT = re.compile(r"^\s*#+\s*(.*?)\s*$")
_CONFIG_LINE = re.compile(r"^(?:(?:[a-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+\s*(?::\s+|=(?!=)\s*)\S|--[a-z][\w-]+)")


def commented_configs(body: str) -> Iterator[tuple[int, str, bool]]:
    """(offset of the first config line, its text, whether its label offers it as another way) of
    each run of comment lines that spell out a config under a label saying it is the result ("#
    resulting keys:" over "#   ddp.x: false", a shell edit script's summary of what its edits leave)
    or what to use ("# in Bridge you can instead use:"), or under any heading boxed between "# ----"
    rules ("# For the Megatron-FSDP colleague:"), which offers it. Trailing comments are dropped."""
    lines = body.split("\n")
    n = 0
    while n < len(lines):
        m = re.match(r"^\s*#+\s?(.*)$", lines[n])
        # "# ----" over "# Megatron-FSDP variant (…)", or "# --- FSDP variant ---": a heading
        boxed = (n > 0 and bool(_RULE.match(lines[n - 1]))) or bool(_RULED_TITLE.match(lines[n]))
        result = bool(m and _RESULT_LABEL.search(m.group(1) + (":" if boxed and not m.group(1).endswith(":") else "")))
        last = _option_paragraph(lines, n)  # "# Option B: if you can't …, switch to …:" over its commented config
        label = _USE_INSTEAD.sub("instead", m.group(1)) if m else ""  # "use instead of the block above": offered
        if last is None and not (m and (result or (boxed and _prose(lines[n]))) and not _NOT_RESULT.search(label)):
            n += 1
            continue  # (any boxed heading with a commented config in its box offers that config: "# For the FSDP run:")
        found, k = [], (n if last is None else last) + 1
        prose = 0  # "# same class of bug, …": a line or two of the label's own explanation (a boxed heading's whole box)
        while k < len(lines):  # "# ----", an empty comment line or that explanation, before the config
            if _RULE.match(lines[k]) or re.match(r"^\s*#+\s*$", lines[k]):
                k += 1
            elif (prose < 2 and _explains(lines[k], lines[k + 1:k + 3])) or (boxed and prose < 12 and _prose(lines[k])):
                prose, k = prose + 1, k + 1
            else:
                break
        while k < len(lines):
            item = re.match(r"^\s*#+ ?( *)(.*?)\s*$", lines[k])
            if item and found and item.group(2).startswith("#"):
                k += 1  # "#   # Keep this True. …": a comment inside the commented config
                continue
            text = re.sub(r"\s+#.*$", "", item.group(2)) if item else ""
            text = re.sub(r"(?<=[\w\]])[).,;]+$", "", text)  # "(… or as overrides: a=1 b=2)." ends the sentence
            nested = item and _SECTION.match(text) or (item and found and item.group(1) and _NESTED.match(text))
            if not (item and (_CONFIG_LINE.match(text) or nested or (found and found[-1].endswith("\\")))):
                break
            found.append(item.group(1) + text)  # a YAML section keeps its indentation
            k += 1
        if found and any(_CONFIG_LINE.match(f.strip()) for f in found):
            yield n + 1, textwrap.dedent("\n".join(found)), last is not None or bool(_OFFERED.search(m.group(1))) or not result
        n = max(k, n + 1)


#: A comment paragraph that opens on an option's label: "# Option B: …", "# Alternative (no TE tracker): …".
_OPTION_HEAD = re.compile(r"^(?:\*\*)?(?:option|alternative|variant|fallback|plan)\b\s*(?:[A-Z0-9]\b)?[^:]{0,60}:", re.I)


def _option_paragraph(lines: list[str], n: int) -> int | None:
    """The index of the last line of the comment paragraph that ``lines[n]`` opens with an option's
    label and that ends on a colon (its config follows); None for any other line."""
    if not _OPTION_HEAD.match(_comment(lines[n])) or (n > 0 and _prose(lines[n - 1])):
        return None
    k = n
    while k + 1 < len(lines) and _prose(lines[k + 1]) and k - n < 8:
        k += 1
    return k if _comment(lines[k]).endswith(":") else None


def _comment(line: str) -> str:
    """The text of a full-line comment ("" for any other line)."""
    m = _COMMENT_TEXT.match(line)
    return m.group(1) if m else ""


def _config_text(text: str) -> bool:
    """A comment's text that is a config line or a section header ("ddp:", "x: true", "--flag")."""
    return bool(_CONFIG_LINE.match(text) or _SECTION.match(text))


def commented_config_line(line: str) -> bool:
    """A comment line that is a config line or a section header ("# ddp:", "#   x: true", "# --flag")."""
    text = _comment(line)
    return bool(text) and "==" not in text and _config_text(text)


def _prose(line: str) -> bool:
    """A comment line of prose: neither a config line nor a section header ("# enabled: it is what lets
    …" has a sentence after its colon)."""
    text = _comment(line)
    return bool(text) and not (_config_text(text) or (_NESTED.match(text) and len(text.split(":", 1)[1].split()) < 4))


def _explains(line: str, below: list[str]) -> bool:
    """A comment line of prose (no ``key: value`` at all) that a commented config follows within ``below``."""
    text = _comment(line)
    return bool(text) and not (_config_text(text) or _NESTED.match(text)) and any(_config_text(_comment(n)) for n in below)


#: "# 0.18+: cuda_graph_scope = None, cuda_graph_modules = ["attn"]": a comment line that gives one era's
#: settings as assignments, after a label that names the era.
_ERA_LINE = re.compile(r"^\s*#+\s*(?P<label>[^:#=]{2,40}):\s*(?P<rest>[A-Za-z_][\w.]*\s*=(?!=).*)$")
_NEXT_ASSIGN = re.compile(r",\s*(?=[A-Za-z_][\w.]*\s*=(?!=))")


def era_comment_settings(body: str) -> Iterator[tuple[int, str, str, bool]]:
    """(line offset, era, Python assignments, whether offered as another way) of each comment line
    of a code block that gives the settings of one megatron-core era ("# 0.16-0.17: cuda_graph_scope
    = ["attn"]"). The era is named by the label alone; the rest must parse as assignments (``ast``,
    never run). A label in parentheses continues the comment line above it ("# * Alternative …: a
    full-iteration graph" over "#   (0.18+: cuda_graph_impl=…"): that line says whether it is offered."""
    import ast

    from skill_tools.evaluation.polarity import era_of

    lines = body.split("\n")
    for n, text in enumerate(lines):
        m = _ERA_LINE.match(text)
        era = era_of(m.group("label")) if m else None
        if era is None:
            continue
        code = "\n".join(part.strip() for part in _NEXT_ASSIGN.split(re.sub(r"\s+#.*$", "", m.group("rest"))))
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if tree.body and all(isinstance(stmt, ast.Assign) for stmt in tree.body):
            label = m.group("label")  # (m is set: era_of found an era in its label)
            above = lines[n - 1] if n and label.lstrip().startswith("(") else ""
            yield n, era, code, bool(_OFFERED.search(label) or _OFFERED.search(above))
