"""Edit the graph flags of a launch script in place, leaving every other byte alone.

``apply`` on a shell script (Megatron-LM flags, Bridge ``run_script.py`` flags, Hydra
overrides) must change only what it was asked to change: the launcher (``torchrun ...``,
``srun``), environment prefixes, comments, line continuations, bash arrays
(``ARGS=( --num-layers 96 ... )``) and every unrelated flag stay as written. Re-rendering the
whole config from the canonical model cannot promise that (``--recompute-granularity full`` has
several spellings), so :func:`splice` works on the text: :func:`scan` splits it into shell words
with their character spans, flag groups (an option and its values) get their canonical keys
through the same flag tables the readers use, and only groups whose keys are being changed are
replaced or removed; new flags go after the last argument of the command that runs the
``.py`` script (or the last flag of the file), in the file's own continuation style.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from skill_tools.config import cli_tables
from skill_tools.config import flags as flag_tables
from skill_tools.config.era import Era
from skill_tools.config.shell_words import Word, is_script_word, module_after_m, scan, variables

#: Input formats whose files are edited in place by :func:`splice`.
SPLICED_FORMATS = ("megatron_lm", "run_script", "hydra")
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_HYDRA = re.compile(r"^([+~]{0,2})([A-Za-z_]\w*(?:\.\w+)*)(=|$)")
_SCOPE_KEYS = {"model.cuda_graph_scope", "model.cuda_graph_modules"}  # one flag, either era's key
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")  # KEY=value is the environment (as the readers take it)


__all__ = ["SPLICED_FORMATS", "Group", "Word", "flags_in_strings", "groups", "scan", "splice"]


@dataclass
class Group:
    """One option with its values (or one Hydra override) and the canonical keys it sets."""

    words: list[Word]
    keys: tuple[str, ...]
    option: str

    @property
    def start(self) -> int:
        return self.words[0].start

    @property
    def end(self) -> int:
        return self.words[-1].end


def groups(words: list[Word], fmt: str, era: Era | None = None) -> list[Group]:
    """The flag groups of ``words``: how many values an option takes comes from the upstream
    table (unknown options take every following non-option word, as the readers do)."""
    table = cli_tables.megatron_lm(era.mcore_version) if fmt == "megatron_lm" and era else (
        cli_tables.run_script() if fmt == "run_script" else None)
    out: list[Group] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.kind != "word":
            continue
        if fmt in ("hydra", "run_script") and not w.value.startswith("-"):
            m = _HYDRA.match(w.value)
            if m and (m.group(3) == "=" or m.group(1) == "~") and not _ENV_NAME.match(m.group(2)):
                key = m.group(2) if "." in m.group(2) else "model." + m.group(2)
                out.append(Group([w], (key,), m.group(2)))
            continue
        if not w.value.startswith("-") or _is_number(w.value) or w.value in ("-", "--"):
            continue
        name, eq, _ = w.value.partition("=")
        opt = table.option(name) if table is not None else None
        members = [w]
        if not eq and (opt is None or opt.takes_value):
            limit = _value_count(opt)
            while i < len(words) and len(members) - 1 < limit:
                nxt = words[i]
                if nxt.kind != "word" or (nxt.value.startswith("-") and not _is_number(nxt.value)) or (
                        _ENV_ASSIGN.match(nxt.value) and opt is None) or nxt.value.endswith(".py") or (
                        nxt.value.startswith("$") and opt is None):
                    break
                members.append(nxt)
                i += 1
        out.append(Group(members, _keys(name, fmt), name))
    return out


def _value_count(opt: cli_tables.Option | None) -> float:
    if opt is None:
        return float("inf")
    nargs = opt.nargs
    if nargs in ("+", "*"):
        return float("inf")
    if str(nargs).isdigit():
        return int(nargs)
    if nargs == "?":
        return 1
    return 1


def _keys(name: str, fmt: str) -> tuple[str, ...]:
    bare = name.lstrip("-")
    if fmt == "megatron_lm":
        return tuple(flag_tables.megatron_lm_flag(bare).keys)
    flag = flag_tables.RUN_SCRIPT.get(bare)
    if flag is not None:
        keys = tuple(flag.keys)
        if "model.cuda_graph_scope" in keys:
            keys += ("model.cuda_graph_modules",)  # set_cuda_graph_modules writes the era's key
        return keys
    return ()


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def splice(text: str, fmt: str, changes: Mapping[str, Any], parts: list[str], era: Era | None = None) -> str:
    """``text`` with the groups that set a changed key replaced by the rendered ``parts`` (each
    part one option with its values, or one override) or removed, and the parts no group takes
    appended after the command's last argument; nothing else changes."""
    words = scan(text)
    existing = groups(words, fmt, era)
    changed = set(changes)
    rendered = [(p, set(_part_keys(p, fmt, era))) for p in parts]
    edits: list[tuple[int, int, str]] = []
    used: set[int] = set()
    placed: set[int] = set()
    for g in existing:
        keys = set(g.keys)
        if not (keys & changed and keys - changed <= _SCOPE_KEYS) and not _same_option(g, rendered):
            continue  # a flag that also sets something else is left alone
        match = next((n for n, (p, keys) in enumerate(rendered)
                      if n not in placed and (keys & set(g.keys)) and _option_of(p) == g.option), None)
        if match is None:
            match = next((n for n, (p, keys) in enumerate(rendered)
                          if n not in placed and keys & set(g.keys)), None)
        if match is not None:
            placed.add(match)
            if text[g.start:g.end] != rendered[match][0]:
                edits.append((g.start, g.end, rendered[match][0]))
        else:
            edits.append(_removal(text, g))
        used.add(id(g))
    missing = [p for n, (p, _) in enumerate(rendered) if n not in placed]
    if missing:
        at, sep = _anchor(text, words, existing)
        edits.append((at, at, "".join(sep + p for p in missing)))
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _same_option(g: Group, rendered: list[tuple[str, set[str]]]) -> bool:
    return any(_option_of(p) == g.option for p, _ in rendered)


def _option_of(part: str) -> str:
    word = part.split(None, 1)[0] if part.strip() else ""
    word = word.strip("'\"")
    m = _HYDRA.match(word)
    if not word.startswith("-") and m:
        return m.group(2)
    return word.partition("=")[0]


def _part_keys(part: str, fmt: str, era: Era | None) -> tuple[str, ...]:
    found = groups(scan(part), fmt, era)
    return tuple(k for g in found for k in g.keys)


def _removal(text: str, g: Group) -> tuple[int, int, str]:
    """The span that removes ``g``: with the blanks before it, and its whole line when nothing
    else is left on it (a trailing ``\\`` on the line before is dropped when ``g`` ended the
    command)."""
    start, end = g.start, g.end
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    rest = text[end:line_end].strip()
    if text[line_start:start].strip() == "" and rest in ("", "\\"):
        if rest == "" and line_start > 0:
            # the group ended the command: the previous line must not continue into the next one
            prev_end = line_start - 1
            prev = text[:prev_end]
            stripped = prev.rstrip(" \t")
            if stripped.endswith("\\"):
                cut = stripped[:-1].rstrip(" \t")
                return len(cut), line_end, ""
        return line_start, min(line_end + 1, len(text)), ""
    if rest == "\\" and text[line_start:start].strip():
        return start, end, ""  # keep the line's own continuation
    return start, end, ""


def _anchor(text: str, words: list[Word], existing: list[Group]) -> tuple[int, str]:
    """Where new flags go and the separator before each: after the last argument of the command
    that runs a ``.py`` script (``pretrain_gpt.py ... ${ARGS[@]}``), else after the last flag of
    the file; continued lines keep the file's ``\\`` style and indentation."""
    found = variables(text)
    script = max((n for n, w in enumerate(words) if w.kind == "word" and (
        is_script_word(w.value, found) or module_after_m(words, n))), default=None)
    last: Word | None = None
    if script is not None:
        for w in words[script:]:
            if w.kind == "op":
                break
            last = w
    elif existing:
        last = existing[-1].words[-1]
    elif words:
        last = next((w for w in reversed(words) if w.kind == "word"), None)
    if last is None:
        return len(text.rstrip("\n")), ""
    prev = next((w for w in reversed(words) if w.end <= last.start and w.kind == "word"), None)
    line_start = text.rfind("\n", 0, last.start) + 1
    indent = re.match(r"[ \t]*", text[line_start:]).group(0)
    between = text[prev.end:last.start] if prev is not None else ""
    command = text[words[script].start:last.start] if script is not None else between
    if "\\\n" in between or "\\\n" in command:
        return last.end, " \\\n" + (indent if line_start > (words[script].start if script is not None else -1) else "  ")
    if "\n" in between:
        return last.end, "\n" + indent
    return last.end, " "


def flags_in_strings(text: str, fmt: str, changes: Mapping[str, Any], era: Era | None = None) -> list[tuple[str, int]]:
    """Graph flags :func:`splice` cannot reach: inside a quoted string assigned to a variable
    (``options="--cuda-graph-scope attn ..."``), as (option, line). The caller says so instead
    of leaving two contradicting spellings unmentioned."""
    spans = [(g.start, g.end) for g in groups(scan(text), fmt, era)]
    out: list[tuple[str, int]] = []
    for word in scan(text):
        m = re.match(r"^([A-Za-z_]\w*)\+?=", word.raw) if word.kind == "word" else None
        if not m or not any(c in word.raw for c in "'\""):
            continue
        inner = word.value[len(m.group(0)):]
        for g in groups(scan(inner), fmt, era):
            if set(g.keys) & set(changes) and not any(s <= word.start < e for s, e in spans):
                out.append((g.option, text.count("\n", 0, word.start) + 1))
    return out
