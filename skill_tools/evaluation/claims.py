"""Claims in prose that bind a subject to the wrong thing: "GDN layers go under `mamba`", "switch
decode to TE graphs", "ZeRO-2 already partitions the parameters". A config can be sound while the
sentence beside it sends the user the wrong way; the task's rubric names such a claim
(``claim_absent``: subject, object and the rivals that are right instead) and this check finds it.

A subject is bound to the first of the objects and rivals that follows it in its own clause, as a
statement puts it ("GDN goes under `attn`", "ZeRO-2 partitions the optimizer states"); what comes
before the subject is not its predicate ("Drop the padding and the config is refused"). A clause
ends at a sentence end, a semicolon, a table cell, a line end or a contrast ("but", "whereas",
"instead of"). An object
that the clause negates ("not `mamba`", "`mamba` would not match", "GDN is not a Mamba layer") or
that the answer rejects (:mod:`polarity`) binds nothing. Matching is on normalised text
(:func:`answer_context.mention_spans`): case and ``-``/``_`` folded; a plain multi-word object or
rival also matches reworded (:mod:`loose_phrases`: inflections, a word or two between, near-synonyms).
A pronoun that opens the clause right after the subject's ("…, but they cannot …") takes the
subject up and is read as it. A claim whose objects are denials (``negative``: "not needed", "can stay unset") binds its nearest
object whatever negation it carries; only a negation before the subject or a nearer rival unbinds it.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from typing import Any

from skill_tools.evaluation.answer_context import AnswerContext, CheckResult, mention_spans, normalise, quote
from skill_tools.evaluation.loose_phrases import loose_mentions
from skill_tools.evaluation.polarity import REJECTED
from skill_tools.evaluation.prose import TABLE_RULE
from skill_tools.evaluation.table_statements import statements
from skill_tools.evaluation.wrapping import unwrapped

#: Where a clause ends (on normalised text: lower case, ``-``/``_`` as spaces).
_CLAUSE_END = re.compile(r"(?<!\bi\.e)(?<!\be\.g)[.!?](?=[*_)\]\"'`]*(?:\s|$))|[;|\n。；！？]|\s(?:but|whereas|while|instead of|rather than|unlike|"
                         r"except|not for|vs\.?|versus|compared to|compared with)\s")
#: A negation anywhere in the clause: a negated sentence states a restriction, not the claim.
#: English and the other languages answers come in (Portuguese, Dutch, German, French, Spanish,
#: Italian, Polish, Czech, Hungarian, Nordic, Romanian, Russian, Ukrainian, Greek, Turkish, Vietnamese,
#: Indonesian); CJK negations carry no word boundary.
_NEGATION = re.compile(r"(?<!\w)(?:not|no|never|nothing|none|neither|nor|without|cannot|won't|isn't|aren't|"
                       r"doesn't|don't|wouldn't|shouldn't|can't|avoid|instead|"
                       r"não|nao|nunca|niet|geen|nooit|nicht|kein\w*|keine|ne|pas|jamais|non|nie|nem|ikke|inte|ei|"
                       r"nu|не|нет|ні|δεν|μην|όχι|değil|không|tidak|bukan)(?!\w)|n't(?!\w)|"
                       r"不|没|無|无|ない|ません|없|않")
_AFTER = 40  # characters after an object in which a negation ("`mamba` would not match") still counts
#: A recommendation right before an object (on normalised text: ``_`` and ``-`` are spaces).
_ADVISE = re.compile(r"(?<![a-z])(?:use|using|switch(?:ing)? to|mov(?:e|es|ing) to|go(?:ing)? with|set|enable|"
                     r"put)\s+(?:the\s+)?[`'\"]*(?:cuda graph (?:impl|modules|scope)\s*[=:]?\s*\[?[`'\"]*)?$")
#: A condition right before the subject ("if the padding flag is off, …"): a supposition.
_IF = re.compile(r"(?<![a-z])(?:if|unless|whether|suppose|assuming)\s+(?:the\s+|your\s+|you\s+(?:[a-z']+\s+){1,3})?[`'\"*]*$")
#: "eager" between a subject and an object: the subject runs without graphs ("TE: eager decode").
_EAGER = re.compile(r"(?<![a-z])eager(?:ly)?(?![a-z])")
_GRAPHED = re.compile(r"graph|transformer_engine|full_iteration|\bTE\b", re.I)
_EAGER_BEFORE = re.compile(r"(?<![a-z])eager(?:ly)?\s+(?:[a-z]+\s+){0,4}$")
_MAX_SUBJECTS = 400  # mentions of the subject examined: an answer that repeats it more says it earlier
_BEFORE = 20  # and before it ("\\emph{not} \\texttt{mamba}")


def _clause(norm: str, pos: int) -> tuple[int, int]:
    start = 0
    for m in _CLAUSE_END.finditer(norm, max(0, pos - 400), pos):
        start = m.end()
    m = _CLAUSE_END.search(norm, pos)
    return start, (m.start() if m else len(norm))


def _prohibits(norm: str, negation: re.Match) -> bool:
    """Whether a negation is an imperative ("don't", "do not", "never", "avoid"), not a statement."""
    return negation.group(0).lower() in ("don't", "dont", "never", "avoid", "instead", "without") or \
        norm[max(0, negation.start() - 3):negation.start()].lower() == "do "


def _negation(ctx: AnswerContext, lo: int, hi: int) -> re.Match | None:
    """The first negation in ``norm[lo:hi]``; a prefix such as "non-" in "non-associative" is a word's
    part, not a negation (the raw text keeps its hyphen)."""
    for m in _NEGATION.finditer(ctx.norm, lo, hi):
        if not (m.group(0) in ("non", "no") and ctx.text[m.end():m.end() + 1] == "-"):
            return m
    return None


def _negated(ctx: AnswerContext, p: int, obj: str, lo: int, hi: int) -> bool:
    """Whether the clause negates or the answer rejects the object mention at ``p``."""
    after = _negation(ctx, p + len(obj), min(hi, p + len(obj) + _AFTER))
    between = ctx.norm[p + len(obj):after.start()] if after else ""
    if after and (re.fullmatch(r"[^,;:.!?]{0,40}?[\s`'\"*]*[,—–][\s]*", between) or re.search(r"[,;]\s*(?:and|so|while)\s", between)):
        after = None  # "bounded by the PP depth, not by GBS": a contrast; "any GPU, and on cards without …": another clause
    before = _negation(ctx, max(lo, p - _BEFORE), p) or _BEYOND.search(ctx.norm, max(lo, p - 40), p)
    return bool(after or before) or ctx.polarity(p, len(obj)).role == REJECTED


#: Right before an object, a comparison that makes it a threshold the subject exceeds ("log-prob
#: differences far above bf16 noise"): the subject is not that object.
_BEYOND = re.compile(r"(?<!\w)(?:above|beyond|over|exceed\w*|outside|(?:more|larger|bigger|greater) than)(?:\W+[\w-]+){0,2}\W*$")


def _words(ctx: AnswerContext, names: list[str]) -> list[tuple[int, str]]:
    """Mentions that are words of prose, not part of an identifier: ``full_iteration`` inside
    ``full_iteration_inference``, or "inference" in ``--inference-cuda-graph-scope``, is not one."""
    text = ctx.text
    found = sorted(set(mention_spans(ctx, names)) | set(loose_mentions(ctx.norm, names)))
    spelled = any("_" in name for name in names)  # names written as identifiers match identifiers
    return [(p, n) for p, n in found
            if not (p > 0 and (text[p - 1] in "_-" or text[p - 1].isalnum()))
            and not (p + len(n) < len(text) and (text[p + len(n)] in "_-" or text[p + len(n)].isalnum()))
            and (spelled or "_" not in text[p:p + len(n)])]  # "same_shape_control" names a variable, not the control


def _row_end(text: str, pos: int) -> int:
    """The end of the table row whose first or second cell holds ``pos`` (a row names its subject
    first, after a group column such as the model, and states it in the later cells), else 0."""
    start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    line_end = len(text) if line_end < 0 else line_end
    head = text[start:pos]
    if not head.lstrip().startswith("|") or head.count("|") > 2 or text[start:line_end].count("|") < 3:
        return 0
    next_end = text.find("\n", line_end + 1)
    if TABLE_RULE.match(text[line_end + 1:next_end if next_end >= 0 else len(text)]):
        return 0  # the header row names the columns; it states nothing
    if head.count("|") == 2 and _blank_corner(text, start):
        return 0  # "| | Qwen3.5 | Nemotron-H |": each column is its own subject, the next cell is another's
    return line_end


def _blank_corner(text: str, row_start: int) -> bool:
    """Whether the table holding the row at ``row_start`` has an empty first header cell (a
    comparison whose columns are the subjects)."""
    lines = text[:row_start].split("\n")[:-1]
    for i in range(len(lines) - 1, 0, -1):
        if TABLE_RULE.match(lines[i]):
            return bool(re.match(r"^\s*\|\s*\|", lines[i - 1]))
        if not lines[i].lstrip().startswith("|"):
            return False
    return False


_SENTENCE_END = re.compile(r"(?<!\.)[.!?](?=[*_)\]\"'`]*(?:\s|$))|\n\s*\n|\n\s*(?:[-*+|]|\d+[.)])\s")


_ROW_START = re.compile(r"[ \t]*\|")


def _sentence_names(norm: str, pos: int, words: list[str] | None) -> bool:
    """Whether the sentence or the line (a bullet, a table row) around ``pos`` names one of ``words``:
    the claim is about another subject ("- `local`: … 0.19 removed that check")."""
    if not words:
        return False
    start = 0
    for m in _SENTENCE_END.finditer(norm, max(0, pos - 300), pos):
        start = m.end()
    m = _SENTENCE_END.search(norm, pos)
    line_start, line_end = norm.rfind("\n", 0, pos) + 1, norm.find("\n", pos)
    sentence = norm[min(start, line_start):max(m.start() if m else len(norm), line_end if line_end >= 0 else len(norm))]
    while _ROW_START.match(norm, line_start) and line_start > 0:  # a table row (org-mode tables are indented):
        line_start = norm.rfind("\n", 0, line_start - 1) + 1  # its header names the columns
        if _ROW_START.match(norm, line_start):
            sentence += " " + norm[line_start:norm.find("\n", line_start)]
    return any(re.search(r"(?<![a-z0-9])" + re.escape(normalise(w)) + r"(?![a-z0-9])", sentence) for w in words)


def _within(mentions: list[tuple[int, str]], starts: list[int], lo: int, hi: int) -> list[tuple[int, str]]:
    return mentions[bisect.bisect_left(starts, lo):bisect.bisect_left(starts, hi)]


_VERBS = frozenset({"drop", "remove", "skip", "disable", "delete", "omit", "turn off"})
#: A verb followed by an object of its own ("drop overflow tokens"), not by a word that points back.
_OWN_OBJECT = re.compile(r"\s+(?!(?:it|them|this|that|these|those|the|its|their|flag|option|setting|knob|entirely|"
                         r"altogether|too|also|as|if|when|for|to|and|or|in|on|with)\b)[a-z]{3,}")


#: A pronoun that opens the next clause and stands for the subject just named ("Graphs can make a run
#: crash, but they cannot …"; "The assert is pre-Blackwell only. It does not fire on B200."; a quoted error
#: as a heading, then "That one comes from …").
_PRONOUN = re.compile(r"(?:[.;:!?][`*_\"')\]]*\s+|\s(?:but|and|so)\s+)(it|they|this|these|those|that one)(?:['’](?:s|re))?\s+"
                      r"(?!is\s+(?:why|how|what|because)|means)")
_PRONOUN_REACH = 160  # characters after the subject's clause in which its pronoun may follow
#: A subject that is a version: "0.19", "megatron core 0.19", "core v0.19" (not "qwen3.5").
_VERSION = re.compile(r"^(?:[a-z][a-z ]*\s)?v?\d+\.\d+\+?$")
#: A version taken up by a locative in the next sentence ("Bump to 0.19. The check was removed there."),
#: not the existential "there is".
_THERE = re.compile(r"(?<![a-z])(?:there(?!\s+(?:is|are|was|were|will|may|might|can|could|should|must|has|have)\b|['’]s)|"
                    r"in that (?:version|release)|since then)(?![a-z])")


def _with_pronouns(joined: str, subjects: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The subject mentions, each followed by the pronoun that takes it up in the next clause
    (``joined``: the answer normalised with its wrapped lines joined)."""
    out: list[tuple[int, str]] = []
    for pos, subj in subjects:
        out.append((pos, subj))
        _, hi = _clause(joined, pos)
        m = _PRONOUN.search(joined, max(pos + len(subj), hi - 1), min(len(joined), hi + _PRONOUN_REACH))
        if m and m.start() - hi < 3:
            out.append((m.start(1), m.group(1)))
        elif _VERSION.match(subj) and hi < len(joined):  # "bump to 0.19. The check was removed there"
            start = hi + 1 + len(joined[hi + 1:]) - len(joined[hi + 1:].lstrip())
            there = _THERE.search(joined, start, min(_clause(joined, start)[1], start + _PRONOUN_REACH))
            if there:
                out.append((start, there.group(0)))
    return sorted(set(out))


#: A purpose that names the object before the subject it asks for: "For comparing against your
#: hardware (…), use algbw", "to judge the fabric, read algbw" (the subject follows right after).
_PURPOSE = re.compile(r"(?<!\w)(?:for|to|when)\s+(?:compar\w*|judg\w*|check\w*|measur\w*)\b[^.;!?]{0,160}?"
                      r"\b(?:use|take|read|look at|go by|rely on)\s+(?:the\s+)?[`'\"*]*$")


#: An expectation, not a finding: "a CUDA graph is supposed to replay the same math as eager"; when
#: the next sentence names a rival ("… assume a replay bug first"), the answer states it to doubt it.
_EXPECTED = re.compile(r"(?<![a-z])(?:supposed to|meant to|in theory|in principle|ideally|on paper)(?![a-z])")
_DOUBT_REACH = 240


def find_claim(ctx: AnswerContext, spec: dict[str, Any]) -> tuple[int, str, str] | None:
    """(position, subject, object) of the first clause that binds a subject to an object. With
    ``negative`` the objects are denials ("not needed", "can stay unset"): the negations they carry are
    the claim, so only a negation before the subject ("not only on Blackwell") and a nearer rival
    ("still", "as well") unbind it."""
    norm = ctx.norm
    negative = bool(spec.get("negative"))
    rivals = _words(ctx, list(spec.get("rivals", [])))
    objects = [(p, o) for p, o in _words(ctx, list(spec["object"]))  # "drop" inside the rival "drop and pad" is not one
               if not any(rp <= p and p + len(o) <= rp + len(r) and len(r) > len(o) for rp, r in rivals)]
    o_at, r_at = [p for p, _ in objects], [p for p, _ in rivals]
    graphed = any(_GRAPHED.search(o) for o in spec["object"])  # a claim that something runs graphed
    joined = normalise(unwrapped(ctx.text))
    for pos, subj in _with_pronouns(joined, _words(ctx, list(spec["subject"]))[:_MAX_SUBJECTS]):
        lo, hi = _clause(joined, pos)
        end = pos + len(subj)
        hi = max(hi, _row_end(ctx.text, pos))  # | Gated DeltaNet | linear-recurrent mixer | `mamba` |: the row states it
        negated = _negation(ctx, lo, hi)
        if negated and negated.start() < end and (_prohibits(ctx.norm, negated) or not re.search(r":\s", norm[negated.end():pos])):
            continue  # "TE graphs can't be used for decode: with TE only scope none is allowed"; a stated negation
            #           before a colon is the clause the colon closes ("GBS isn't the knob: dropping GBS …"), a
            #           prohibition reaches the reasons after it ("Don't go by X alone: it can report …")
        if norm[hi:hi + 1] in ("?", "？"):
            continue  # "Can I use `transformer_engine` graphs for decode?" asks; it claims nothing
        if re.search(r"[=≈]\s*$", norm[max(0, pos - 3):pos]) or (
                re.match(r"\s*(?:[×·/]|\*(?!\*)|\*\*\s*\d)", norm[end:end + 4]) and norm[pos - 1:pos] != "*"):
            continue  # "busbw = algbw * 2(n-1)/n": a term of a formula (not "**algbw**" or "*algbw*", emphasis), not a subject
        if graphed and _EAGER_BEFORE.search(norm[max(lo, pos - 40):pos]):
            continue  # "| `transformer_engine` | eager decode |": the subject run without graphs
        if _IF.search(norm, max(lo, pos - 40), pos):
            continue  # "if padding is turned off, MCore asserts …" supposes; it claims nothing
        if _sentence_names(joined, pos, spec.get("unless_in_sentence")):
            continue  # "the local check is gone in 0.19": the sentence is about another subject
        if _EXPECTED.search(norm, lo, hi) and _within(rivals, r_at, hi, hi + _DOUBT_REACH):
            continue  # "A graph is supposed to replay the same math. If … assume a replay bug": an expectation then doubted
        lead = _PURPOSE.search(norm, max(lo, pos - 200), pos)  # "For comparing against your hardware (…), use algbw"
        ahead = [(p, o) for p, o in objects if lead and lead.start() <= p < pos and not _negated(ctx, p, o, lo, hi)]
        if ahead and not negative and not any(lead.start() <= p < pos for p in r_at):
            return pos, subj, ahead[0][1]
        near = [(p - end, p, o, True) for p, o in _within(objects, o_at, end, hi)]
        near += [(p - end, p, r, False) for p, r in _within(rivals, r_at, end, hi)]
        if negative:  # the objects are themselves denials ("not needed"): the nearest one binds
            bound = min(near, default=None)
            if bound and bound[3]:
                return pos, subj, bound[2]
            continue
        for _, p, obj, is_object in sorted(near):  # the nearest that is not a negated object binds
            if is_object and _negated(ctx, p, obj, lo, hi):
                continue
            if is_object and obj.lower() in _VERBS and _OWN_OBJECT.match(norm, p + len(obj)) and \
                    not any(w in norm[p + len(obj):p + len(obj) + 30] for w in spec["subject"]):
                continue  # "FLOPs on padding and drop overflow tokens": the verb has an object of its own
            if is_object and not _negation(ctx, end, p) and not (graphed and _EAGER.search(norm, end, p)):
                return pos, subj, obj  # "decode: eager, with `transformer_engine`" does not graph decode
            break
        advised = None if negated else _advised_before(ctx, objects, o_at, rivals, r_at, lo, pos) or \
            _bound_before(ctx, objects, o_at, rivals, r_at, lo, pos, graphed)  # a negation after the subject: not bound before it
        if advised is not None:
            return pos, subj, advised
    return None


#: What joins an object to a subject that follows it: a short predicate ending on a preposition
#: ("`transformer_engine` graphs: also fine for decode", "TE grafi delujejo tudi za decode"), in
#: the languages answers come in, or on a verb that applies it ("TE graphs: the helper can also
#: capture decode").
_FOR_SUBJECT = re.compile(r"^[^,;]{0,50}(?<![a-z])(?:for|during|in|at|with|za|voor|bij|für|beim|pour|para|per|dla|"
                          r"podczas|için|cho|untuk|при|для|για|captures?|serves?|covers?|handles?|accelerates?|"
                          r"speeds? up)\s*(?:the\s+|its\s+|their\s+|your\s+|all\s+)?[`'\"*]*$")  # "`mamba` for the GDN layers"


def _bound_before(ctx: AnswerContext, objects: list[tuple[int, str]], o_at: list[int],
                  rivals: list[tuple[int, str]], r_at: list[int], lo: int, pos: int, graphed: bool = False) -> str | None:
    """An object stated of the subject that follows it in its clause ("`transformer_engine`
    graphs: also fine for decode"), with no rival between them, no negation of the object and, for
    a claim that something runs graphed, no "eager" between them."""
    before = _within(objects, o_at, lo, pos)
    if not before:
        return None
    p, obj = before[-1]
    if not _FOR_SUBJECT.match(ctx.norm[p + len(obj):pos]) or _within(rivals, r_at, p + len(obj), pos) \
            or _negated(ctx, p, obj, lo, pos) or (graphed and _EAGER.search(ctx.norm, p + len(obj), pos)):
        return None
    return obj


def _advised_before(ctx: AnswerContext, objects: list[tuple[int, str]], o_at: list[int],
                    rivals: list[tuple[int, str]], r_at: list[int], lo: int, pos: int) -> str | None:
    """An object recommended earlier in the subject's clause ("move to `cuda_graph_impl="full_iteration"`,
    which captures the whole decode iteration"), with no rival between it and the subject."""
    before = [(p, o) for p, o in _within(objects, o_at, lo, pos) if _ADVISE.search(ctx.norm, max(lo, p - 40), p)]
    if not before:
        return None
    p, obj = before[-1]
    if _within(rivals, r_at, p + len(obj), pos) or _negated(ctx, p, obj, lo, pos):
        return None
    return obj


def _claim_in_tables(ctx: AnswerContext, spec: dict[str, Any]) -> tuple[int, str, str] | None:
    """The claim stated across a table's cells (:mod:`table_statements`), at its row's position."""
    other = [normalise(w) for w in spec.get("unless_in_sentence") or []]
    lines = [(s, p) for s, p, about in _table_lines(ctx.text) if not any(w in normalise(about) for w in other)]
    if not lines:
        return None
    table_ctx = AnswerContext(text="\n".join(s for s, _ in lines), extraction=ctx.extraction, era=ctx.era)
    found = find_claim(table_ctx, spec)
    if found is None:
        return None
    pos, subj, obj = found
    line_no = table_ctx.text.count("\n", 0, pos)
    return lines[line_no][1], subj, obj


@lru_cache(maxsize=64)
def _table_lines(text: str) -> tuple[tuple[str, int, str], ...]:
    return tuple(statements(text))


def check_claim_absent(ctx: AnswerContext, spec: dict[str, Any]) -> CheckResult:
    name = spec["name"]
    found = find_claim(ctx, spec)
    if found is None:
        found = _claim_in_tables(ctx, spec)
    if found is None:
        # a guard, not a merit: an answer earns nothing for a mistake it does not make
        return CheckResult("claim_absent", name, None, f"not applicable: does not claim {name}")
    pos, subj, obj = found
    note = f" ({spec['note']})" if spec.get("note") else ""
    return CheckResult("claim_absent", name, 0.0, f"claims {name}: binds {subj!r} to {obj!r}{note}",
                       quote(ctx.text, pos), fatal=True)
