"""Locate an answer's config fragments: fenced blocks (by language, or guessed), the sides of a diff, Markdown
tables, inline code spans, ``key=value`` and "set ``key`` to ``value``" prose and settings stated in words; each
one a :class:`Block` with its polarity and era. Nothing is read or run here: :mod:`extract` reads the blocks."""

from __future__ import annotations

import itertools
import re
import textwrap
from typing import Iterator

from skill_tools.evaluation.fragments import COUNTEREXAMPLE, SUGGESTED, WORDS, _DANGER_TEXT, Block, _guess_kind, _shell_blocks, json_document
from skill_tools.evaluation.comments import COMMENT_ITEM, comment_sentences, commented_configs, era_comment_settings
from skill_tools.evaluation.recast import CONTROL_RUN, DONT_LABEL, INSTEAD, ITEM_OR_MORE, control_run, described_quote, listed_as_dont
from skill_tools.evaluation.options import Section, plain_title
from skill_tools.evaluation.envelopes import argv_commands, chat_asker, chat_speaker, nested_override_dicts, notebook_as_markdown, unwrap
from skill_tools.evaluation.file_names import diff_file, file_named
from skill_tools.evaluation.embedded import EDIT_RESULT, heredocs, hunk_end, numbered_listing, run_scripts, transcript_hunk
from skill_tools.evaluation.sectioned import looks_sectioned, sectioned_overrides
from skill_tools.evaluation.transcripts import is_transcript, steps
from skill_tools.evaluation.option_cases import with_case
from skill_tools.evaluation.polarity import ALTERNATIVE, DESCRIBED, IF_CASE, LinePolarity, Polarity, heading_era, intro_polarity
from skill_tools.evaluation.wrapping import code_like, wrapped_lead, wrapped_trail
from skill_tools.evaluation.prose import is_table_start, stated_in_words, table_cells
from skill_tools.evaluation.keys import PARALLEL
from skill_tools.evaluation.era_branches import era_split
from skill_tools.evaluation.unfenced import code_runs, python_literal_code
from skill_tools.evaluation.diffs import DIFF_FILE, diff_sides, looks_like_diff
from skill_tools.evaluation.prose_patterns import (
    _BULLET_KV, _FILE_KEY, _KEY_NAME, _NOT_VALUES, _PARALLEL_KV, _PROSE_COLON, _PROSE_FLAGS, _PROSE_KV, _PROSE_QUOTED,
    _PROSE_TO, _RENAMED, _SECTION_WORD, changed_to_new, last_sentence, quoted_messages_blanked)
from skill_tools.evaluation.doc_fences import as_fences
from skill_tools.evaluation.field_dicts import field_dict_blocks
from skill_tools.evaluation.variants import document_variants, shell_variant_dict
from skill_tools.evaluation.spans import _inline_code, _kv, _message, placed_by_owner, table_pair_blocks

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+.-]*)[^\n]*$")
_LANG = {
    "python": "python", "py": "python", "python3": "python", "ipython": "python",
    "yaml": "yaml", "yml": "yaml", "json": "json", "jsonc": "json",
    "bash": "shell", "sh": "shell", "shell": "shell", "console": "shell", "zsh": "shell",
    "text": "auto", "txt": "auto", "": "auto", "ini": "sectioned", "toml": "sectioned", "cfg": "sectioned", "diff": "diff", "patch": "diff",
}
_INLINE_CODE = re.compile(r"`([^`\n]{1,400})`")


def _locate(text: str) -> Iterator[Block]:
    text = as_fences(notebook_as_markdown(text) or text)  # a notebook's cells, other formats' code blocks: Markdown
    if "```" not in text and document_variants(text)[1]:  # the whole answer is an experiment file: one document
        text = f"```yaml\n{text}\n```"
    lines = text.split("\n")
    quoted = [ln for ln in lines if _QUOTE.match(ln) and ln.strip(" >")]
    if len(quoted) * 2 > len([ln for ln in lines if ln.strip()]):  # a review thread: the quotes are the answer
        lines = [_QUOTE.sub("", ln, count=1) for ln in lines]
    i = 0
    prose_start = 0
    section = Section(asker=chat_asker(lines))  # the era named by the latest heading; which option we are in
    recommended = False  # a block recommended already: a later "If …, do:" block is a fallback, an option
    while i < len(lines):
        m = _FENCE.match(lines[i])
        j = hunk_end(lines, i) if not m and EDIT_RESULT.match(lines[i]) else i + 1  # "⎿  Updated f.yaml …"
        if j > i + 1:
            yield from _prose_blocks(lines, prose_start, i + 1, section)
            yield from section.mark(_fenced_blocks(transcript_hunk(lines[i + 1:j]), "diff", i + 2, SUGGESTED))
            i = prose_start = j
            continue
        if not m:
            i += 1
            continue
        yield from _prose_blocks(lines, prose_start, i, section)
        fence, lang = m.group(1), m.group(2).lower()
        j = i + 1
        while j < len(lines) and not lines[j].lstrip().startswith(fence[0] * len(fence)):
            j += 1
        body = textwrap.dedent("\n".join(lines[i + 1:j]))  # a fence inside a list item is indented
        pol = _intro(lines, i, body if any(ln.strip() for ln in lines[:i] + lines[j + 1:]) else "", section.era)  # whole: no intro
        if pol.role == SUGGESTED and recommended and _FALLBACK_INTRO.match(last_sentence(_lead(lines, i))):
            pol = Polarity(ALTERNATIVE, pol.era, "a fallback for the case its intro names")  # "If HBM is tight, narrow to:"
        recommended = recommended or pol.role == SUGGESTED
        path = file_named(lines[i], lines[max(0, i - 2):i])
        for b in section.mark(_with_intro(b, pol, path) for b in _fenced_blocks(body, _LANG.get(lang, "auto"), i + 2, pol.role)):
            b.group = i + 1
            yield b
        i = j + 1
        prose_start = i
    yield from _prose_blocks(lines, prose_start, len(lines), section)


def _with_intro(block: Block, pol, path: str | None = None) -> Block:
    block.era = block.era or pol.era
    block.why = block.why or pol.why
    block.file = block.file or path
    return block


#: An intro that names a case before what to do: "If EP=8 leaves you short on HBM, narrow to …:".
_FALLBACK_INTRO = re.compile(r"^\W*(?:if|when|should)\b[^,:]{3,120},\s*\w+[^:]*:\s*$", re.I)


def _lead(lines: list[str], fence_index: int) -> str:
    """The last non-empty line of the two above a fence (that may introduce it), with the line it wraps."""
    at = [i for i in range(max(0, fence_index - 2), fence_index) if lines[i].strip()]
    return (wrapped_lead(lines[at[-1] - 1] if at[-1] else "", lines[at[-1]]) + " " + lines[at[-1]]).strip() if at else ""


def _intro(lines: list[str], fence_index: int, body: str, section_era: str | None):
    """The block's polarity from the sentence just above it (or its own first comment)."""
    lead = _lead(lines, fence_index)
    if lead and not (lead.endswith(":") or len(lead) <= 60):
        lead = ""  # only an introducing line ("Before:", "On 0.16 use:") sets the role
    heads = list(itertools.takewhile(lambda ln: ln.lstrip().startswith(("#", "//", ";")), body.lstrip().split("\n")))
    comment = next((ln for k, ln in reversed(list(enumerate(heads))) if ln.rstrip().endswith(":") and ln.count("(") <= ln.count(")")
                    and not COMMENT_ITEM.match((heads + [""])[k + 1])), heads[0] if heads else "")  # "(Alternative if …:"
    # opens an aside over the next lines; "# Changes vs. X:" over a "#   - …" list introduces that list, not the block
    comment = "" if (len(comment.strip(" #/;")) > 60 and not comment.rstrip().endswith(":")) or era_split(body, "shell") \
        or re.match(r"[#/;\s]*why\b", comment, re.I) else comment  # a sentence, not a label; a header of one of the
    #   block's era sections, not of the block; "# Why it fails" titles an explanation, not the block's settings
    return intro_polarity(last_sentence(lead), comment, section_era)


def _fenced_blocks(body: str, kind: str, line: int, role: str) -> Iterator[Block]:
    if not body.strip():
        return
    body = numbered_listing(body)  # grep -n / editor output: "41:    cfg.model.x = 1"
    body, kind = unwrap(body, kind)  # a patch, a SEARCH/REPLACE edit, "# ... existing code ...", CMD [...]
    if kind in ("shell", "auto") and is_transcript(body):  # "$ cmd" then its output: only commands advise
        for step in steps(body):
            yield from _fenced_blocks(step.command, "shell", line + step.line, role)
            if (step.shows_file or step.shows_diff) and step.output.strip():
                shown = DESCRIBED if step.before_change and not step.shows_diff else role
                for b in _fenced_blocks(step.output, "auto", line + step.output_line, shown):
                    if shown == DESCRIBED:
                        b.role, b.why = DESCRIBED, "a file as the session found it"
                    yield b
        return
    if kind == "diff" and len(DIFF_FILE.findall(body)) > 1:  # one diff per file: each file is its own config
        for part in DIFF_FILE.split(body):
            if part.strip():
                path = diff_file(part)
                for b in _fenced_blocks(part, "diff", line + body[:body.find(part)].count("\n"), role):
                    b.file = b.file or path
                    yield b
        return
    if kind == "diff":
        new_side, old_side, removed = diff_sides(body)
        new_blocks = list(_fenced_blocks(new_side, "auto", line, role)) if new_side.strip() else []
        yield from new_blocks
        if removed:
            for block in _fenced_blocks(old_side, "auto", line, COUNTEREXAMPLE):
                block.why = "a removed line of a diff"
                block.diff_new = new_blocks
                yield block
        return
    if kind == "sectioned" or (kind == "auto" and looks_sectioned(body)):  # TOML / INI: [model] key = value
        overrides = sectioned_overrides(body)
        if overrides:
            yield Block("hydra", overrides, line, "fenced", role)
            return
        kind = "auto"
    if kind == "auto" and looks_like_diff(body):
        yield from _fenced_blocks(body, "diff", line, role)
        return
    if kind == "auto" and all(_message(ln) for ln in body.splitlines() if ln.strip()):
        return  # a quoted message: 'cuda_graph_modules must be empty when cuda_graph_impl="full_iteration".'
    if kind == "auto":
        kind = "json" if json_document(body) else "python" if python_literal_code(body) else \
            _guess_kind("\n".join(ln for ln in body.split("\n") if not ln.lstrip().startswith(("#", "//"))) or body)
    if kind in ("python", "yaml", "json"):
        branches = era_split(body, kind)  # if mcore < 0.18: … else: …; "# 0.16-0.17" … "# 0.18+" sections
        for era, code in branches:
            part = Block(kind, code, line, "fenced", role)
            part.era = era
            yield part
        if not branches:
            yield Block(kind, body, line, "fenced", role)
        if kind == "python":  # argv = ["torchrun", "x.py", "--cuda-graph-impl", "local"]; OmegaConf.create({...})
            for command in argv_commands(body):
                yield from _shell_blocks(command, line, role, "fenced")
            for nested in nested_override_dicts(body):
                yield Block("json", nested, line, "fenced", role)
            yield from field_dict_blocks(body, line, role)  # GRAPHS = {"cuda_graph_impl": …}, one per era
        if kind == "yaml":  # a CI step's `run: |` script holds the launch command
            for script, at in run_scripts(body):
                yield from _shell_blocks(script, line + at, role, "fenced")
    elif _DANGER_TEXT.search(body):
        yield Block("shell", body, line, "fenced", role)  # screened and rejected, never split
        return
    else:
        body, docs = heredocs(body)  # cat > f <<EOF …, python - <<EOF with s.replace(old, new)
        for side, doc, at in docs:  # (the script is never a block: it is neither config nor run)
            yield from _fenced_blocks(doc, "auto", line + at, role if side == "new" else COUNTEREXAMPLE)
        runs = shell_variant_dict(body)  # declare -A VARIANTS=( [A]="model.x=…" … ): the runs it sweeps
        if runs is not None:
            yield Block("python", runs, line, "fenced", role)
        for era, part in era_split(body, "shell") or [(None, body)]:  # if [ "$MCORE_MINOR" -ge 18 ]; then … else … fi
            for b in _shell_blocks(part, line, role, "fenced"):
                b.era = b.era or era
                yield b
    if role == SUGGESTED:
        yield from _comment_blocks(body, line)


_COMMENT_KV = re.compile(r"(?<![\w.`'\"-])((?:[a-z_]\w*\.)*[a-z][a-z0-9]*_[a-z0-9_]+):\s+(\[[^\]\n]*\]|[\w.+-]+)")


def _comment_blocks(body: str, line: int) -> Iterator[Block]:
    """Options and rejections a config's own comments state ("# Alternative: cuda_graph_impl: te also serves
    decode", "# never set cuda_graph_scope here"): read like prose; one that describes its line recommends nothing."""
    for n, comment in comment_sentences(body):
        if _DANGER_TEXT.search(comment):
            continue
        found = list(_line_blocks(comment, line + n, None))
        pol = LinePolarity(comment)
        for kv in _COMMENT_KV.finditer(comment):
            p = pol.at(kv.start(), kv.end())
            block = Block("hydra", _kv(kv.group(1), kv.group(2)), line + n, "comment", p.role)
            block.era, block.why = p.era, p.why
            found.append(block)
        for block in found:
            if block.role in (ALTERNATIVE, COUNTEREXAMPLE):
                block.origin = "comment"
                yield block
    for n, text, offered in commented_configs(body):  # "# resulting keys:" over "#   ddp.x: false"
        yield from _spelled_out(text, line + n, ALTERNATIVE if offered else SUGGESTED)
    for n, era, code, offered in era_comment_settings(body):  # "# 0.18+: cuda_graph_modules = ["attn"]"
        for block in _fenced_blocks(code, "python", line + n, ALTERNATIVE if offered else SUGGESTED):
            block.origin, block.era, block.why = "comment", era, "the settings a comment gives for one era"
            yield block


def _spelled_out(text: str, line: int, role: str = SUGGESTED) -> Iterator[Block]:
    for block in _fenced_blocks(text, "auto", line, role):
        block.origin, block.why = "comment", "a config the answer's comments spell out as the result"
        yield block


def _prose_blocks(lines: list[str], start: int, end: int, section: Section) -> Iterator[Block]:
    """Inline code spans, bare ``key=value`` pairs, Markdown tables and settings stated in words in
    the prose between fences, each judged by its own clause (:class:`polarity.LinePolarity`) or,
    in a table, by its column's header."""
    idx = start
    runs = dict(code_runs(lines, start, end))
    prev = ""  # the prose line before, for a sentence hard-wrapped across lines
    dont = False  # inside the list under a "DON'T" / "Avoid:" label
    control = False  # inside a paragraph whose first line names the eager control run
    while idx < end:
        text = lines[idx]
        lead, prev = wrapped_lead(prev, text), ""
        if not text.strip():
            idx += 1
            control = False
            continue
        control = control or bool(CONTROL_RUN.match(text) and (idx == start or not lines[idx - 1].strip()))
        dont = bool(DONT_LABEL.match(text)) or (dont and bool(ITEM_OR_MORE.match(text)))
        if idx in runs:  # config written without a fence: read like a fenced block
            body = textwrap.dedent("\n".join(lines[idx:runs[idx]]))
            pol = _intro(lines, idx, body, section.era)
            blocks = [_with_intro(b, pol) for b in _fenced_blocks(body, "auto", idx + 1, pol.role)]
            for b in blocks:
                b.origin = "unfenced" if b.origin == "fenced" else b.origin
                b.group = idx + 1
            yield from section.mark(blocks)
            idx = runs[idx]
            continue
        if is_table_start(lines, idx):
            found, idx = table_cells(lines[:end], idx, section.era)
            for cell in found:
                yield from section.mark(_table_blocks(cell))  # a table under "Option B" is option B
            continue
        spelled = next(iter(commented_configs("\n".join(lines[idx:min(end, idx + 60)]))), None) \
            if text.lstrip().startswith("#") else None
        if spelled is not None and spelled[0] == 1:  # "# resulting keys:" over "#   ddp.x: false" lines
            yield from section.mark(_spelled_out(spelled[1], idx + 2, ALTERNATIVE if spelled[2] else SUGGESTED))
            idx += 1 + spelled[1].count("\n") + 1
            continue
        is_heading, era = heading_era(text)
        if not is_heading and plain_title(lines, idx, end):  # a plain title names a section's era only by naming one
            is_heading, era = heading_era(text, title=True)
            is_heading = era is not None
        if is_heading:
            section.heading(text, era)
            if text.lstrip().startswith(("#", "---", "===")):  # a heading (or a ruled title) names a topic
                idx += 1
                continue
        else:
            section.label(text)
        if _QUOTE.match(text) or (section.asker and chat_speaker(text) == section.asker):  # "> cfg.model.x = …" or
            yield from described_quote(_line_blocks(_QUOTE.sub("", text), idx + 1, section.era))
            idx += 1  # "[14:02] sam: copied x=…": the user's words, quoted
            continue
        trail = wrapped_trail(text, lines[idx + 1]) if idx + 1 < end else ""
        found = _line_blocks(text, idx + 1, section.era, lead=lead, trail=trail)
        found = control_run(found) if control else found
        yield from section.mark(listed_as_dont(found) if dont and not INSTEAD.search(text) else found)
        section.prose_line(text)
        prev = f"{lead} {text}" if lead and not code_like(text) else text  # a sentence wrapped over lines: read whole
        idx += 1


_QUOTE = re.compile(r"^\s{0,3}>\s?")
def masked_code(text: str) -> str:
    """``text`` with its inline code spans blanked (their settings are read from the spans)."""
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)


def _table_blocks(cell) -> Iterator[Block]:
    if cell.pair:
        yield from table_pair_blocks(cell)
        return
    p = cell.polarity
    for block in _line_blocks(cell.text, cell.line, p.era, words=False):
        if p.role != SUGGESTED and block.role == SUGGESTED:
            block.role = p.role
        block.era = block.era or p.era
        block.why = block.why or p.why
        block.origin = "table"
        yield block


def _line_blocks(text: str, ln: int, section_era: str | None, words: bool = True, lead: str = "",
                 trail: str = "") -> Iterator[Block]:
    text = changed_to_new(_BULLET_KV.sub(r"\1\2=\3\4", text))  # "- model.use_te_rng_tracker: true" is key=value
    yield from with_case(_line_settings(text, ln, section_era, words, lead, trail), text, lead, ln)


def _line_settings(text: str, ln: int, section_era: str | None, words: bool, lead: str, trail: str) -> Iterator[tuple[int, Block]]:
    """The settings a line of prose states, each with where it starts in the line."""
    text = quoted_messages_blanked(text)
    pol = LinePolarity(text, section_era, lead=quoted_messages_blanked(lead) if lead else "",
                       trail=quoted_messages_blanked(trail) if trail else "")
    prev = None  # prev: (end, polarity) of the span before, for "`a=1`, `b=2`" lists
    for m in _INLINE_CODE.finditer(text):
        p = pol.at(m.start(), m.end())
        if prev and not p.why and prev[1].why and re.fullmatch(r"[\s,;+&]*(?:and\s+|or\s+)?", text[prev[0]:m.start()]):
            p = prev[1]  # a later item of a list of settings has the polarity of the first
        prev = (m.end(), p)
        for block in _inline_code(placed_by_owner(m.group(1), text[max(0, m.start() - 60):m.start()]), ln, p.role):
            block.era, block.why = p.era, p.why
            yield m.start(), block
    quoted = [q.span() for q in re.finditer(r"`+([^`\n]*\s[^`\n]*\s[^`\n]*)`+", text)]  # `x must be disabled when …`
    for m in _PROSE_TO.finditer(text):
        key, value = m.group(1), m.group(2) or m.group(3)
        if value.lower() in _NOT_VALUES or (not key.isupper() and "_" not in key and "." not in key) or _FILE_KEY.search(key) or \
                any(a < m.start() < b for a, b in quoted) or _RENAMED.search(text[max(0, m.start() - 40):m.start()]) or \
                _KEY_NAME.match(value.strip("`'\"")):  # a quoted message; "rename cuda_graph_scope to cuda_graph_modules"
            continue
        value = {"empty": "[]", "disabled": "false", "enabled": "true"}.get(value.lower(), value)  # "… must be disabled"
        p = pol.at(m.start(), m.end())
        kind, body = ("env", f"{key}={value.strip(chr(34) + chr(39))}") if key.isupper() else \
            ("hydra", _kv(key, value))
        block = Block(kind, body, ln, "prose", p.role)
        block.era, block.why = p.era, p.why
        yield m.start(), block
    for m in _PROSE_QUOTED.finditer(text):
        p = pol.at(m.start(), m.end())
        block = Block("hydra", _kv(m.group(1), m.group(2)), ln, "prose", p.role)
        block.era, block.why = p.era, p.why
        yield m.start(), block
    masked = masked_code(text)
    for m in _PROSE_FLAGS.finditer(masked):  # "Megatron-LM flags: --cuda-graph-impl local --cuda-graph-scope x"
        p = pol.at(m.start(), m.end())
        for block in _shell_blocks(m.group(0), ln, p.role, "prose"):
            block.era, block.why = p.era, p.why
            yield m.start(), block
    for m in _PROSE_COLON.finditer(masked):  # "Under model: cuda_graph_impl: transformer_engine, …"
        p = pol.at(m.start(), m.end())
        block = Block("hydra", _kv(m.group(1), m.group(2)), ln, "prose", p.role)
        block.era, block.why = p.era, p.why
        yield m.start(), block
    for m in _PARALLEL_KV.finditer(text):  # "TP=8 (one node)": a parallel size as people write it
        p = pol.at(m.start(), m.end())
        block = Block("hydra", f"{PARALLEL[m.group(1)]}={m.group(2)}", ln, "prose", p.role)
        block.era, block.why = p.era, p.why
        yield m.start(), block
    for m in _PROSE_KV.finditer(masked):
        key, value = m.group(1), m.group(2)
        if "://" in value:
            continue
        section = _SECTION_WORD.search(masked, max(0, m.start() - 30), m.start())
        if section and "." not in key:
            key = f"{section.group(1).lower()}.{key}"  # "dataset pad_to_max_length = False"
        p = pol.at(m.start(), m.end())
        if key.isupper():
            block = Block("env", f"{key}={value.strip(chr(34) + chr(39))}", ln, "prose", p.role)
        else:
            block = Block("hydra", _kv(key, value), ln, "prose", p.role)
        block.era, block.why = p.era, p.why
        yield m.start(), block
    if not words:
        return
    plain = text.replace("`", " ")
    for stated in stated_in_words(plain):
        p = pol.at(stated.pos, stated.pos + stated.length)
        value = stated.value
        shown = "[" + ",".join(value) + "]" if isinstance(value, list) else \
            (str(value).lower() if isinstance(value, bool) else value)
        block = Block("hydra", f"{stated.key}={shown}", ln, WORDS, p.role)
        block.era, block.why = p.era, p.why or "stated in words"
        yield stated.pos, block
