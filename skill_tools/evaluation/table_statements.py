"""A Markdown table read as the sentences it stands for, so that a claim made in a table is judged
as the same claim made in prose.

A table states a claim across cells: the row names the subject, the column the attribute, the cell
the value ("| `True` | higher — the gathered params are kept | faster |" under a heading that names
``reshard_after_forward``), or the columns name the subjects and the rows the attributes
("| backward | no extra all-gather | all-gathers again |" under "| | `x=True` | `x=False` |").
:func:`statements` writes each cell as a line "<subject>: <cell>." for both readings, and, when
the cell opens with a short phrase ("higher", "lowest", "faster, …"), also "<subject>: <phrase>
<attribute>." ("reshard_after_forward=True: higher memory."), keeping for each line the position of
its row in the answer for the evidence. The attribute joins only a short phrase: joined to a long
cell ("| Extra memory | ≈ one block's params |") its own words would read as the claim. A first cell that is a bare value
(``True``, ``False``, a number, a quoted string) is named by the setting the header cell or the
two lines before the table name (``reshard_after_forward``), as a reader would; a table whose rows
are booleans (``=True=`` / ``=False=`` in org-mode) is named by the last setting of the section above it.

Tables introduced as what does not work ("What does not work:") are left out: their rows are
rejected, not stated.
"""

from __future__ import annotations

import re

from skill_tools.evaluation.prose import REJECTING_INTRO, cells, is_table_start

#: A cell that is only a value: ``True``, ``False``, ``None``, a number, a quoted string, ``int``.
_BARE_VALUE = re.compile(r"""^(?:true|false|none|null|on|off|yes|no|-?\d+(?:\.\d+)?|"[^"]*"|'[^']*'|int(?:\s*\(.*\))?)$""", re.I)
#: A setting's name: snake_case of two parts or more, optionally dotted, or a CLI flag.
_SETTING = re.compile(r"(?<![\w.-])((?:[A-Za-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+|--[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w-])")
#: Where a cell's leading phrase ends: "higher — the gathered …", "faster, no second all-gather".
_PHRASE_END = re.compile(r"\s+[—–-]\s+|[,;:(]|\s+\(")
_MAX_PHRASE_WORDS = 2  # "higher", "much lower": a qualifier of the attribute, not a quantity
_SECTION_LINES = 12  # lines before a table in which the setting a table of bare values is about may be named
_MAX_LINES = 400  # tables longer than this are data dumps, not claims


_BOOLEAN = re.compile(r"^(?:true|false|on|off|yes|no)$", re.I)
#: org-mode's verbatim and code markers: ``=True=``, ``~reshard_after_forward~``.
_ORG_VERBATIM = re.compile(r"(?<![\w=~])[=~]([^=~\s](?:[^=~]*[^=~\s])?)[=~](?![\w=~])")


def _clean(cell: str) -> str:
    cell = _ORG_VERBATIM.sub(r"\1", cell)
    return " ".join(cell.replace("`", "").replace("**", "").replace("__", "").split()).strip()


def _named_setting(header0: str, intro: str) -> str | None:
    """The setting a table of bare values is about: named in its first header cell, else the
    last named in the two lines before it."""
    for source in (header0, intro):
        found = _SETTING.findall(source.replace("`", " ").replace("*", " "))
        if found:
            return found[-1]
    return None


def _subject(cell: str, setting: str | None) -> str:
    value = _clean(cell)
    if setting and _BARE_VALUE.match(value):
        return f"{setting}={value}"
    return value


def _lines_for(subject: str, attribute: str, value: str) -> list[str]:
    if not subject or not value:
        return []
    out = [f"{subject}: {value}."]  # the attribute alone is no claim ("| Extra memory | ≈ 3 GB |")
    head = _PHRASE_END.split(value, maxsplit=1)[0].strip()
    if attribute and head and len(head.split()) <= _MAX_PHRASE_WORDS and not re.search(r"\d", head):
        out.append(f"{subject}: {head} {attribute}.")
    return out


#: A line of a value list: "#   false -> the gathered params are released …", "- **True**: kept until backward".
_VALUE_ITEM = re.compile(r"^[\s#;/*>-]*(?:\*\*|__|`)?(true|false|none|on|off)(?:\*\*|__|`)?\s*(?:->|→|=>|:|—|–)\s*(\S.*)$", re.I)
_COMMENT_LEAD = re.compile(r"^[\s#;/]*")


def value_list_statements(lines: list[str], offsets: list[int]) -> list[tuple[str, int, str]]:
    """A list of a setting's values, each with what it does, under a line that names the setting
    ("[reshard_after_forward]" over "#   false -> released after forward …"): each item, with the
    lines that continue it (indented deeper), as "<setting>=<value>: <text>." (two items or more)."""
    out: list[tuple[str, int, str]] = []
    i = 0
    while i < len(lines):
        items = []
        j = i
        while j < len(lines) and (m := _VALUE_ITEM.match(lines[j])):
            lead, start = len(_COMMENT_LEAD.match(lines[j]).group(0)), j
            words, j = [m.group(2)], j + 1
            while j < len(lines) and not _VALUE_ITEM.match(lines[j]) and lines[j].strip(" #;/") and \
                    len(_COMMENT_LEAD.match(lines[j]).group(0)) > lead:
                words.append(lines[j].strip(" #;/"))
                j += 1
            items.append((m.group(1), " ".join(words), offsets[start]))
        if len(items) >= 2:
            setting = _named_setting("", " ".join(lines[max(0, i - _SECTION_LINES):i]))
            for value, words, at in items if setting else []:
                out.append((f"{setting}={value}: {_clean(words).rstrip('.')}.", at, setting))
        i = max(j, i + 1)
    return out


#: A sentence whose subject is a quoted boolean: "``False`` is the leaner setting: FSDP drops …".
_VALUE_SUBJECT = re.compile(r"(?:^|(?<=[.!?:])\s+|\n\s*)(?:``?|\*\*)(True|False)(?:``?|\*\*)\s+((?:\([^()]{0,80}\)\s+)?"
                            r"(?:is|does|keeps|frees|re-?gathers|drops|saves|uses|costs|means|gives|trades|makes|releases|"
                            r"holds|avoids|skips)\b[^.!?]{0,300}[.!?]?)")


def value_sentences(text: str) -> list[tuple[str, int, str]]:
    """Sentences whose subject is a quoted ``True``/``False`` in a section about one setting (named
    in the lines above), as "<setting>=<value> <predicate>."."""
    out: list[tuple[str, int, str]] = []
    for m in _VALUE_SUBJECT.finditer(text):
        above = text[max(0, m.start() - 600):m.start()].split("\n")[-_SECTION_LINES:]
        setting = _named_setting("", " ".join(above))
        if setting:
            out.append((f"{setting}={m.group(1)} {_clean(m.group(2))}", m.start(), setting))
    return out


def statements(text: str) -> list[tuple[str, int, str]]:
    """(sentence, position of its row in ``text``, what the cell is about: the other header) for
    every data cell of every Markdown table, and every item of a value list."""
    lines = text.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    out: list[tuple[str, int, str]] = value_list_statements(lines, offsets) + value_sentences(text)
    seen: set[tuple[str, int]] = set()
    i = 0
    while i < len(lines):
        if not is_table_start(lines, i):
            i += 1
            continue
        header = [_clean(c) for c in cells(lines[i])]
        intro_lines = [ln for ln in lines[max(0, i - 2):i] if ln.strip()]
        intro = " ".join(intro_lines)
        rejected = bool(intro_lines) and intro_lines[-1].rstrip().endswith(":") and \
            bool(REJECTING_INTRO.search(intro_lines[-1].replace("*", "").replace("_", " ")))
        setting = _named_setting(cells(lines[i])[0] if cells(lines[i]) else "", intro)
        if setting is None and all(_BOOLEAN.match(_clean(cells(ln)[0]) if cells(ln) else "")
                                   for ln in lines[i + 2:i + 4] if "|" in ln):  # | =True= | … | under a heading
            setting = _named_setting("", " ".join(lines[max(0, i - _SECTION_LINES):i]))
        j = i + 2
        while j < len(lines) and "|" in lines[j] and lines[j].strip() and j - i < _MAX_LINES:
            row = cells(lines[j])
            if not rejected and len(row) >= 2:
                row_subject = _subject(row[0], setting)
                for k in range(1, min(len(row), len(header))):
                    value = _clean(row[k])
                    for s, about in [(x, header[k]) for x in _lines_for(row_subject, header[k], value)] + \
                            [(x, row[0]) for x in _lines_for(_subject(header[k], setting), _clean(row[0]), value)]:
                        if (s, offsets[j]) not in seen:  # the row or the column names the subject
                            seen.add((s, offsets[j]))
                            out.append((s, offsets[j], about))
            j += 1
        i = j
    return out
