"""What an answer says about each setting it writes down: recommended, rejected, alternative; which era.

A setting's polarity is decided from its own clause (the words around it up to the nearest clause
break: ``;``, a parenthesis, ``but``, ``instead of``, ``rather than``, ``whereas``) and, for a fenced
block, from the sentence that introduces it: never from words anywhere earlier in the answer. "Set
X=1 instead of Y=2" recommends X and rejects Y; "X=2 is rejected on 0.16" rejects X; "(Y on
0.16-0.17)" is an era-specific spelling; "drop-and-pad" is not a negation. Everything here is linear
in the text's length: a line's clause breaks are found once, a setting's clause found by bisection.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from skill_tools.evaluation.described import (_CASE_LABEL, _CAUSE, _COMPARES, _CONDITION, _DESCRIBES, _EITHER_OR, _FAILS_IF, _IF_STATE,
                                             _INSTEAD_AFTER, _MODAL_USE, _MODULE_NEEDS, _ONLY_FOR, _ONLY_VALID, _OWN_PROHIBITION, _RECIPES_SET, _SCARE_QUOTED, _SEARCHED,
                                             _SHIPS_WITH, _UNLESS_LIST, _VERSUS, _WITH_FAILS, RULED_TITLE, defines_subject)

RECOMMENDED, REJECTED, ALTERNATIVE, LEGACY, CURRENT = "suggested", "counterexample", "alternative", "legacy", "current"
#: A setting named to define a condition ("the `moe` scope is only for drop-and-pad MoE (…)"): neither recommended nor rejected.
DESCRIBED = "described"
#: The why of a setting that spells out the case an if-clause names (an option offered for that case).
IF_CASE = "spells out an if-clause's case, in an aside"
#: How far (characters) a clause or sentence reaches on each side of a setting: a negation 300
#: characters back in an unbroken run-on line is not about it, and the bound keeps scoring linear.
WINDOW = 300

# A clause ends at these; "instead of" / "rather than" start a new (rejected) clause.
_BREAK = re.compile(r"[;()\[\]。；！？（）]|[.!?](?=\s|$)|,\s+(?=but\b|whereas\b|while\b|not\b|and not\b|never\b|so\b|or\s+(?:`|['\"]?[A-Za-z_][\w.]*\s*=)|(?:`[^`\n]+`|['\"]?[A-Za-z_][\w.]*=\S+)\s+on\s+(?:megatron-core\s+|mcore\s+|core\s+)?v?0\.\d|"
                    r"therefore\b|hence\b|thus\b|instead\b)|:\s+(?=(?:use|set|switch|enable|add|keep|try|pass|put|change|run|launch|start)\b)|"
                    r"\s(?=(?:but|whereas|instead of|rather than|unlike|replacing)\s)|(?:(?<=0\.1\d\+)|(?<=0\.1\d))\s(?=or\s+[`'\"]?[A-Za-z_][\w.]*\s*=)|\s(?:->|→|=>)\s|\s[—–]\s", re.I)
_SENTENCE, _CODE_SPAN = re.compile(r"[.!?](?=\s|$)"), re.compile(r"`[^`\n]+`|(?<=[\w.]=)\[[^\]\n]{0,200}\]")  # and x=[a, b]
#: Words (or a cross mark) before a setting, anywhere in its clause, that reject it.
_NEG_BEFORE = re.compile(
    r"[✗✘❌🚫⛔✖]|\b(?<!that )(?<!which )(?:don'?t|do not|does not|never|avoid|"  # "modules that don't cover the router": the object's
    r"(?:cannot|can'?t|can not|must not|mustn'?t|should not|shouldn'?t)\s+(?:\w+ly\s+)?(?:use|set|enable|turn on|pass|keep|add|apply)|"
    r"replaced|removed|renamed|migrated (?:away )?from|instead of|rather than|no longer|stop using|replacing|unlike|"
    r"forbidden|wrong|incorrect|invalid|delet(?:e|es|ing)|remov(?:es|ing)|omit(?:s|ting)?|leav(?:e|ing) out|"
    r"reject(?:s|ed|ing)?|rule(?:s|d)? out|not (?:an? |a valid )?(?:option|alternative|choice|fix)|(?:is|are|was)\s+[*_]*not[*_]*\s+to|"
    # dismissed as beside the point: "this has nothing to do with X", "X-style knobs are irrelevant"
    r"(?:has |have )?nothing to do with|unrelated to|irrelevant|no need (?:for|to)|"
    # the same in the other languages answers come in (German, Chinese)
    r"nicht|niemals|statt|anstatt|vermeide[nt]?|entfern(?:e|en|t)|"
    r"get rid of|strip(?:ping)? out|comment(?:ing)? out|(?:make sure|ensure|check that|verify that)\s+(?:no|nothing|none)\b|"
    r"(?:would|should|will|must)(?:\s+not|n'?t|\s+never)\s+do|not to do)\b", re.I)
_REMEDY = re.compile(r"(?:es|ing)?\s+(?:that|this|it|the \w+)(?:\s+\w+)?:\s*$")  # "removes that overhead: `x`"
#: Chinese prohibitions (no word boundaries in CJK text); searched only in text that is not ASCII.
_NEG_CJK = re.compile(r"不要|不能|不可以|别用|禁止|避免|勿|而不是|去掉|删除")
#: Japanese/Chinese/Korean negations that follow what they reject ("X はデコードには使えません"), same sentence.
_NEG_AFTER_CJK = re.compile(r"^[^。！？\n]{0,40}?(?:使えません|使えない|使わない|使用できません|できません|不可|"
                            r"不支持|不能用|사용할 수 없|안 됩니다)")
#: Weaker words that reject a setting only when they stand right before it ("not X", "without X",
#: "drop X"; "drop" never in drop-and-pad / dropless / dropout).
_NEG_NEAR = re.compile(
    r"\b(?:not|no|without|remove|removing|delete|unset|replace|old|deprecated|skip|ignore|"
    r"drop(?![-_ ]?(?:and|&|pad|less|out|ped\b)))\b(?:\s+(?:the|a|an|any|setting|set|using|use|passing|"
    r"with|key|flag|option|spelling|old|legacy|\w+ing|`[^`]{1,80}`(?:\s*,|\s+or|\s+and|\s+nor|\s*\+|\s*&)?)){0,5}\s*[`'\"]?$", re.I)
#: Words after a setting, in its clause, that reject it ("X is rejected on 0.16").
_NEG_AFTER = re.compile(
    r"^[\s`'\",]*(?:ऐवजी|के\s+बजाय|की\s+जगह|کے\s+بجائے|کی\s+جگہ)|"  # Marathi/Hindi/Urdu "instead of" follows its object
    r"^[\s`'\",]*(?:(?:form|spelling|syntax|variant)\s+)?(?:is|are|was|were|will be|gets|would be)\s+"
    r"(?:now\s+|also\s+|only\s+|just\s+)?(?:the|an?)\s+"
    r"(?:old|older|legacy|deprecated|obsolete|removed|wrong|invalid)\b|"
    r"^[\s`'\",]*(?:(?:form|spelling|syntax|variant)\s+)?(?:is|are|was|were|will be|gets|would be)?\s*"
    r"(?:now\s+|also\s+|only\s+|just\s+)?(?:rejected|wrong|invalid|"
    r"incorrect|deprecated|removed|an error|not (?:supported|allowed|valid|accepted|needed|required)|"
    r"no longer|forbidden|broken|unsupported|illegal|fatal)|"
    r"^[\s`'\",]*(?:(?:is|are|stays?|remains?)\s+)?(?:unset|out(?![\w-])|removed|deleted|omitted|left out|commented out)|"
    r"^[\s`'\",]*(?:line|flag|setting|key|option|entry)s?\s+(?:out|removed|deleted|gone)\b|"
    r"^[\s`'\",]*(?:(?:would|will|also|too)\s+)?(?:fails?|crash(?:es)?|breaks?|raises|asserts?|"
    r"errors|hangs|does not (?:exist|work|capture|pass)|doesn'?t (?:exist|work|capture|pass)|won'?t (?:work|pass)|causes)|"
    # dismissed as beside the point, also for a list: "X or Y don't apply here", "X and friends alone"
    r"^(?:[\s`'\",]*(?:,|\bor\b|\band\b|\bnor\b)\s*[`'\"]?[\w.=-]+[`'\"]?)*[\s`'\",]*"
    r"(?:(?:(?:do|does|will|would)(?: not|n'?t)|won'?t) (?:apply|matter|help|belong|change (?:this|that|it|anything)\b|"
    r"fix (?:this|that|it)\b|make (?:a|any) difference)|(?:is|are) (?:not relevant|irrelevant|"
    r"not applicable|unrelated)|(?:and )?friends alone)|"
    # dismissed as a non-fix: "X only hides the symptom", "X is just a workaround"
    r"^[\s`'\",]*(?:(?:is|are|would be)\s+)?(?:only|just|merely)\s+(?:hides?|masks?|papers? over|works? around|"
    r"a workaround|a band-?aid|treats? the symptom)", re.I)
#: A restriction stated of the setting: "whole-layer (`recompute_granularity="full"`) recompute is only
#: allowed with full-iteration graphs" describes a rule, it does not ask for the setting.
_ONLY_WITH = re.compile(r"^[\s`'\",)]*(?:[\w-]+\s+){0,3}?(?:(?:is|are)\s+only\s+(?:allowed|supported|valid|accepted|"
                        r"possible|permitted|legal)\b|(?:gets?|passes|slips?|makes? it)\s+(?:past|through)\b|is\s+exempt)", re.I)
_DOUBLE_NEG = re.compile(r"\b(?:don'?t|do not|never) (?:forget|miss|skip|omit)\b|\bnot only\b|\bno matter\b", re.I)
_ALT = re.compile(r"\b(?:optionally|alternatively|or else|you (?:can|could|may) also|"
                  r"if (?:what )?you(?:'d| would)? (?:\w+ly )?(?:want|wanted|need|prefer|rather|care)|"
                  r"an alternative|alternative\s+(?:if|when|for)|"
                  r"(?<!\band )(?<!\bor )later|for comparison|as an alternative|widen(?:ing)? to|after an a/b|to compare|"
                  r"also try|fallback|fall back|(?:go|switch|roll|fall)(?:ing)? back to|revert(?:ing)? to|"
                  r"option (?:b|2|two)|second option|other option|other (?:valid )?choice|also valid|"
                  r"(?:eager |graphs?[- ]off )?baseline|control run|reference run|cross-?check|sanity check|gegenprobe|"
                  r"(?:a/b|compare|comparing|benchmark|measure|diff)\b[^.;:]{0,80}?\b(?:against|versus))\b|"
                  r"\((?:2|3|4|b|c|ii|iii)\)\s|\bor\s+\((?:\d|[a-d])\)|\b(?:alternative|(?:variant|setup|config|version)\s+instead)\s*[:—–-]", re.I)
#: The eager side of a comparison, its settings in parentheses: "eager (`cuda_graph_impl="none"`)", "an eager A/B (…)".
_CONTROL = re.compile(r"\beager(?:\s+(?:run|control|arm|leg|reference|a/b|comparison|variant|side|baseline))?\s*\(\s*[`'\"]?$|"
                      r"\bcompar(?:e|ing)\b[^.;:]{0,80}?\b(?:with|against)\s+(?:the\s+|an?\s+)?[`'\"]?$", re.I)  # "compare X with `y`"
#: A conditional fallback earlier in the sentence: "if the tracker gives you any trouble (...) you can set … back to False".
_FALLBACK = re.compile(r"\b(?:if|when|should)\b[^.;]{0,200}?\b(?:gives? you (?:any )?(?:trouble|problems|issues)|"
                       r"causes? (?:any )?(?:trouble|problems|issues)|doesn'?t work|does not work|fails?|breaks?|"
                       r"misbehaves?|is too slow|runs? out of memory|(?:is|are) tight|(?:is|are|were|was) not faster|"
                       r"(?:is|are)n'?t faster|no faster|(?:does|do)(?: not|n'?t) (?:help|capture|replay|fit)|not worth|"
                       r"still (?:fails?|hangs?|crashes|OOMs?|runs? out|asserts?|errors?|raises|throws|diverges|NaNs?)|still (?:does|do)(?: not|n'?t)|"
                       r"(?:is|are|'s|'re|comes? out|stays?|looks?) (?:flat|neutral)|(?:neither|none) (?:of them )?helps?|"
                       r"(?:shows?|gives?|brings?) no (?:gain|speedup|win|improvement)|(?:is|are)n'?t (?:a )?win|"
                       r"(?:does|do)(?: not|n'?t) (?:improve|speed|pay off))\b", re.I)
#: A leading if-clause up to the comma that ends it: its words state a case, not the setting's polarity.
_COND_LEAD = re.compile(r"^\W*(?:and\s+|but\s+|or\s+)?(?:if|when|whenever|once|should)\b[^,;:]{1,200},\s+", re.I)
_MAYBE_FALLBACK = re.compile(r"\b(?:if|when|should)\b", re.I)
#: A sentence that opens on a preference ("If what you actually wanted was ..., ") offers an option.
_OPENER = re.compile(r"^\W*(?:and\s+|but\s+|or\s+)?(?:if|when)\s+(?:what\s+)?you(?:'d|\s+would|'re|\s+are)?\s+"
                     r"(?:\w+ly\s+)?(?:wanted|want|prefer|rather|care more|after)\b", re.I)
#: Abbreviations whose dot ends no sentence.
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx)\.", re.I)
_LEGACY_RE = re.compile(r"\b(?:0\.1[67](?:\.\d+)?(?:\s*[-–]\s*0?\.?1[67])?|core_v0\.1[67]\S*|pre-?0\.18|"
                        r"before 0\.18|older (?:mcore|megatron|versions?|releases?|examples?|code|api|spelling|keys|docs)|legacy era|<\s*0\.18)\b", re.I)
_CURRENT_RE = re.compile(r"(?:\b0\.(?:1[89]|2\d)(?:\.\d+)?\+?|\b0\.18\+|\bcore_v0\.(?:1[89]|2\d)\S*|"
                         r"\bnewer (?:mcore|megatron|versions?|releases?|examples?|code|api|spelling|keys|docs)|\bcurrent era|>=\s*0\.18)", re.I)


def era_of(text: str) -> str | None:
    """``legacy`` / ``current`` when ``text`` names exactly one era, else None."""
    legacy, current = bool(_LEGACY_RE.search(text)), bool(_CURRENT_RE.search(text))
    return LEGACY if legacy and not current else CURRENT if current and not legacy else None


#: A variable named for an era: ``OVERRIDES_019``, ``ARGS_0_16``, ``MCORE_V018_FLAGS``, ``SCOPE_LEGACY``.
_ERA_NAME = re.compile(r"(?:^|_)(?:V|MCORE|CORE)?_?0_?(1[6-9])(?=_|$)|(?:^|_)(LEGACY|CURRENT)(?=_|$)", re.I)
#: A line that assigns a variable (shell, Make, Python): ``NAME=``, ``NAME := ``, ``NAME ?= ``.
_ASSIGNED = re.compile(r"^\s*(?:export\s+|override\s+)?([A-Za-z_]\w*)\s*(?::=|\?=|\+=|=)")


def name_era(name: str) -> str | None:
    """The era a variable's name gives its value, or None."""
    m = _ERA_NAME.search(name)
    if not m:
        return None
    if m.group(2):
        return LEGACY if m.group(2).lower() == "legacy" else CURRENT
    return LEGACY if int(m.group(1)) <= 17 else CURRENT


@dataclass(frozen=True)
class Polarity:
    role: str
    era: str | None = None
    why: str = ""


_ENUMERATOR = re.compile(r"\(\s*(?:\d{1,2}|[a-zA-Z]|[ivxIVX]{1,4})\s*\)")  # "(2) keep …" numbers an option


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    for a, b in spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return text


class LinePolarity:
    """Clause and sentence breaks of one line, found once; ``at(start, end)`` judges one setting."""

    def __init__(self, text: str, section_era: str | None = None, lead: str = "", trail: str = ""):
        # ``lead``: the line before, when ``text`` continues its hard-wrapped sentence; ``trail``: the
        # rest of the sentence on the next line. Judgements read across the wrap, offsets stay those of ``text``
        self._shift = len(lead) + 1 if lead else 0
        assigned = _ASSIGNED.match(text)  # "GRAPH_ARGS_016 := --cuda-graph-scope attn": the whole line is that era's
        self._assigned_era = name_era(assigned.group(1)) if assigned else None
        text = f"{lead} {text}" if lead else text
        text = f"{text} {trail}" if trail else text
        # Markdown emphasis is not a word ("Do **not** switch to"): blanked, offsets kept
        text = _EMPHASIS.sub(lambda m: " " * len(m.group(0)), text)
        text = _SCARE_QUOTED.sub(lambda m: " " * len(m.group(0)), text)  # "slowly wrong" numerics: a name, no verdict
        self.text = text
        self.section_era = section_era
        masked = _CODE_SPAN.sub(lambda m: "`" + "x" * (len(m.group(0)) - 2) + "`", text)  # no breaks inside `code` or a value list
        masked = _ABBREV.sub(lambda m: m.group(0).replace(".", "_"), masked)  # "e.g." ends no sentence
        self._breaks = [m.start() for m in _BREAK.finditer(masked)]
        self._break_ends = [m.end() for m in _BREAK.finditer(masked)]
        # outside a parenthesis the aside is not a clause of its own: "removed `x` (it meant local)
        # and `y`" removes y too
        asides = [m.span() for m in _ASIDE.finditer(masked) if not _ENUMERATOR.fullmatch(m.group(0))]
        outer = _blanked(masked, asides)
        self._outer = ([m.start() for m in _BREAK.finditer(outer)], [m.end() for m in _BREAK.finditer(outer)])
        self._outer_text = _blanked(text, asides)
        self._asides = asides
        self._sentences = [m.end() for m in _SENTENCE.finditer(masked)]

    def _span(self, bounds: list[int], ends: list[int], start: int, end: int) -> tuple[int, int]:
        i = bisect.bisect_right(bounds, start - 1)
        lo = ends[i - 1] if i > 0 else 0
        j = bisect.bisect_left(bounds, end)
        hi = bounds[j] if j < len(bounds) else len(self.text)
        return lo, max(hi, end)

    def at(self, start: int, end: int) -> Polarity:
        start, end = start + self._shift, end + self._shift
        outside = self._aside_opener(start) is None
        breaks, ends = self._outer if outside else (self._breaks, self._break_ends)
        text = self._outer_text if outside else self.text
        lo, hi = self._span(breaks, ends, start, end)
        lo, hi = max(lo, start - WINDOW), min(hi, end + WINDOW)  # a run-on line: each judgement stays O(1)
        before, after = text[lo:start], text[end:hi]
        s_lo, s_hi = self._span(self._sentences, self._sentences, start, end)
        s_lo, s_hi = max(s_lo, start - WINDOW), min(s_hi, end + WINDOW)
        sentence = text[s_lo:s_hi]
        clause = text[lo:hi]
        if self.text.count("~~", 0, start) % 2 == 1 and "~~" in self.text[end:]:
            return Polarity(REJECTED, era_of(clause), "struck through")  # ~~`x`~~: a Markdown strikethrough
        k = next((k for k in reversed([m.start() for m in re.finditer(", ", text[lo:start])]) if era_of(text[max(lo, lo + k - 24):lo + k])), -1)
        clause = text[lo + k:hi] if k >= 0 and not era_of(text[lo + k:hi]) else clause  # "`b` on 0.16/0.17, `c`, and `d`": that era tags b
        era = self._assigned_era or era_of(clause) or (self._aside_era(end, hi) if outside else None) \
            or era_of(self.text[s_lo:s_hi]) or self.section_era  # an aside names the era of the sentence it sits in
        if re.match(r"\s(?:->|→|=>)\s", text[hi:hi + 4]) and \
                not _JOINED.sub(" ", text[end:hi]).strip(" `'\""):  # "`a` + `b` → `c`": a and b are old
            return Polarity(REJECTED, era, "the old side of an arrow")
        if re.match(r"\s(?:->|→|=>)\s+" + _VERDICT, text[hi:hi + 40]):
            return Polarity(REJECTED, era, "an arrow to a verdict")  # "`x` on 0.16 → rejected"
        aside = self._aside_opener(start)
        if _DESCRIBES.search(text[max(lo, start - 90):start]) or _RECIPES_SET.search(text[max(lo, start - 90):start]) or \
                (aside is not None and (_DESCRIBES.search(aside + "(") or _MODULE_NEEDS.search(aside[-120:])
                                        or _SHIPS_WITH.search(aside[-120:]))) \
                or _MODULE_NEEDS.search(text[max(lo, start - 120):start]):  # "`moe` needs drop-and-pad: `x` and `y`"
            return Polarity(DESCRIBED, era, "what a library does, not advice")
        if aside is not None and (_CONDITION.search(aside) or defines_subject(aside, text[start:s_hi])):
            return Polarity(DESCRIBED, era, "names the condition something else needs, in an aside")
        if aside is not None and _IF_CLAUSE.search(text[s_lo:self.text.rfind("(", 0, start)]) or _IF_STATE.match(text[s_lo:start]):
            return Polarity(DESCRIBED, era, IF_CASE)  # "If you run drop-and-pad (`x: true`), …"
        if aside is not None and _CASE_LABEL.search(aside) and re.match(r"[^()\n]*\)\s*(?:[:—–]|->|→|=>)", text[start:start + 200]):
            return Polarity(DESCRIBED, era, "defines the case a list item is about")  # "- **drop-and-pad** (`x` set): …"
        head = _DOUBLE_NEG.sub(" ", _SPACES.sub(" ", before))  # blanked emphasis leaves runs of spaces
        lead = _COND_LEAD.match(head)  # "if graphs still don't capture, switch to X": the if-clause's
        head = head[lead.end():] if lead else head  # negation states the case, it does not reject X
        if _NEW_SIDE.search(head):
            return Polarity(RECOMMENDED, era, "the new side of a replacement")
        if _SEARCHED.search(text[max(s_lo, start - 160):start]):
            return Polarity(DESCRIBED, era, "names what to search for")
        if _CAUSE.search(head) or _FAILS_IF.search(text[s_lo:start]) or (_WITH_FAILS[0].search(text[s_lo:start]) and _WITH_FAILS[1].search(text[end:s_hi])):
            return Polarity(DESCRIBED, era, "names the case a reason or a failure is about")
        if _UNLESS_LIST.search(text[s_lo:start]):
            return Polarity(DESCRIBED, era, "spells out the condition an 'unless' names")
        if _ONLY_WITH.match(text[end:end + 120]) or (_ONLY_FOR[0].search(head) and _ONLY_FOR[1].match(text[end:end + 120])) or _ONLY_VALID.search(head):
            return Polarity(DESCRIBED, era, "names what a restriction is about")  # "(`x`) is only allowed with y"
        m = _NEG_BEFORE.search(head) or _NEG_NEAR.search(head) or \
            (None if head.isascii() else _NEG_CJK.search(head))
        m = None if m and _REMEDY.match(head[m.end():]) else m  # "graphs remove that overhead: `x`": x is the remedy
        if m:
            return Polarity(REJECTED, era, f"{m.group(0).strip()!r} in its clause")
        m = _NEG_AFTER.search(after) or (None if after.isascii() else _NEG_AFTER_CJK.search(text[end:s_hi]))
        if m:
            return Polarity(REJECTED, era, f"{m.group(0).strip()!r} after it")
        prefix = sentence[: max(0, start - s_lo)]
        if _VERSUS.match(text[end:end + 12]) and _COMPARES.search(self.text):
            return Polarity(DESCRIBED, era, "a side of an A/B comparison")  # "`impl=none` vs your current `te`"
        if _CONTROL.search(prefix):
            return Polarity(DESCRIBED, era, "the eager control of a comparison")  # "an eager A/B (`impl: none`)"
        # "…, optionally widening to X; set Y": Y's own clause asks for it; "(2) keep … with Y" is option 2
        alt = _ALT.search(prefix[prefix.rfind(";") + 1:][-100:])  # a hedge does not reach past a ';'
        affirm = _AFFIRM.search(before)
        asked = affirm and not (alt and re.match(r"\s*(?:or\s*)?\(", alt.group(0)))
        if _ALT.search(before) or (not asked and (alt or _OPENER.match(prefix))) or _EITHER_OR.search(prefix) or \
                (_MODAL_USE.search(prefix) and _INSTEAD_AFTER.match(text[end:end + 40])):
            return Polarity(ALTERNATIVE, era, "offered as an alternative")
        if _MAYBE_FALLBACK.search(prefix) and _FALLBACK.search(prefix):
            return Polarity(ALTERNATIVE, era, "a fallback, if something goes wrong")
        case = _OTHER_SETUP.match(prefix)
        if case and era_of(case.group(1) or "") is None:
            return Polarity(ALTERNATIVE, era, "an option for the setup an if-clause names")
        m = affirm or _LABEL.search(before)
        if m:
            return Polarity(RECOMMENDED, era, f"{m.group(0).strip()!r} before it")
        m = _ALT_AFTER.search(after)
        if m:
            return Polarity(ALTERNATIVE, era, f"{m.group(0).strip()!r} after it")
        m = _ENDORSED.search(after)
        if m:
            return Polarity(RECOMMENDED, era, f"{m.group(0).strip()!r} after it")
        return Polarity(RECOMMENDED, era)  # no cue either way: ``why`` stays empty (:func:`precedence.outranked`)

    def _aside_era(self, end: int, hi: int) -> str | None:
        """The era an aside in the setting's clause names: "`x = [mlp]` (0.16/0.17)"."""
        for a, b in self._asides:
            if end <= a < hi:
                era = era_of(self.text[a:b])
                if era:
                    return era
        return None

    def _aside_opener(self, start: int) -> str | None:
        """The words just before the parenthesis that holds ``start`` (None: not in one)."""
        lo = max(0, start - WINDOW)
        i = self.text.rfind("(", lo, start)
        if i < 0 or ")" in self.text[i:start]:
            return None
        return self.text[max(0, i - 80):i]


_SPACES = re.compile(r"\s+")
#: Other settings and joiners between a setting and an arrow: "`a=1` + `b=2` → …".
_JOINED = re.compile(r"`[^`]*`|[+,&]|\b(?:and|plus|with)\b", re.I)
_EMPHASIS = re.compile(r"\*{1,3}(?=\S)|(?<=\S)\*{1,3}|(?<!\w)__|__(?!\w)")
#: The verdict an arrow may lead to: "`x` on 0.16 → rejected", "→ fails", "→ ❌".
_VERDICT = r"(?:rejected|refused|fails?|error|invalid|wrong|not supported|unsupported|crash(?:es)?|asserts?|❌|✗|✘)"
#: Words in a setting's clause that ask the reader to act on it ("set", "use", "add", "switch to",
#: "you need"). A setting written in prose without them ("TE graphs only permit `x=none`", "after the
#: upgrade this becomes `--y block`") may be a description; the answer's written config outranks it
#: (:meth:`extract.Extraction.select`).
_AFFIRM = re.compile(r"\b(?:(?<!` )set|sets|setting|use|used|using|enable|enabled|enabling|add|added|adding|pass|passed|"
                     r"passing|turn(?:ing|ed)? on|switch(?:ing|ed)? (?:it |them |this |that )?(?:to|over)|chang(?:e|ed|ing) (?:it |this |that )?to|"
                     r"mov(?:e|ed|ing) (?:\w+ ){0,2}to|migrat(?:e|ed|ing) (?:\w+ ){0,2}to|"
                     r"updated?|now|go with|keep|kept|keeping|put|"
                     r"flip|try|apply|need|needs|must|should|recommend(?:ed)?|make sure|ensure|configure|specify|"
                     r"launch with|run with|override|pin|plus|also|then|fix|fixed|do this|like this|"
                     r"pon|usa|activa|añade|mets|utilise[zr]?|ajoute[zr]?|setze|verwende|füge|nutze|設定|使用|追加|설정|사용)\b",
                     re.I)
#: Words after a setting that vouch for it ("`x=te` works for decode too", "`y` is fine here as well").
_ENDORSED = re.compile(r"^[^.;]{0,60}?\b(?:too|as well|also works?|works? (?:fine|well|great|here)|"
                       r"is (?:fine|ok|okay|supported|allowed|safe|better|faster)|(?:is|are) the (?:right|best|better))\b",
                       re.I)
#: A label that introduces the setting: "Fix: `x`", "Recommended -> `x`", "**Change**: `x`".
_LABEL = re.compile(r"(?:^|\s)[\w*]+\**\s*[:=]\s*[*`'\"]*$|(?:->|→|=>)\s*[`'\"]?$")

#: "replaced X with Y", "swap X for Y": Y is what the answer now uses.
_NEW_SIDE = re.compile(r"\b(?:replac(?:e|ed|es|ing)|swap(?:ped|s|ping)?)\b[^;]{0,200}?\s(?:with|by)\s[^;]{0,200}$", re.I)
#: A sentence that opens on a condition and has not left it yet: "If (and only if) you run drop-and-pad ", "… fails unless you run X (".
_IF_CLAUSE = re.compile(r"^\W*(?:and\s+|but\s+)?(?:if|when|whenever|as long as|provided)\b[^,;:]*$|\bunless\s+(?:you\s+)?(?:run|use|have|are|is)\b[^,;:()]*$", re.I)
#: "If your MoE is drop-and-pad (…), use `[moe]` instead": advice for another setup than the user's.
_OTHER_SETUP = re.compile(r"^\W*(?:and\s+|but\s+)?if\s+((?:your|the)\s+(?:moe|model|run|recipe|config|setup|job|experts?|stack|container|cluster)\b"
                          r"[^.;]*?),\s*(?:then\s+|just\s+)?(?:use|set|switch to|graph|add|put)\b|"
                          # "If you'd rather stay dropless, use …": the option for a preference (the "if" may sit on the line before)
                          r"^\W*(?:if\s+|should\s+)?you(?:'d| would)?\s+(?:rather|prefer)\b()[^.;]*?,\s*(?:then\s+)?(?:use|set|switch to|add|put)\b", re.I)
#: Words after a setting that offer it beside the recommendation: "`[moe]` is the alternative".
_ALT_AFTER = re.compile(r"^[\s`'\",]*(?:[\w-]+\s+){0,3}?(?:is|are|would be|becomes)\s+(?:the|an|another|a|your)\s+"
                        r"(?:\w+\s+){0,2}(?:alternative|option|fallback|plan b|choice)\b", re.I)  # "… on its own is the other valid choice"
# --------------------------------------------------------------------------------------------
# fenced blocks: the sentence that introduces them
# --------------------------------------------------------------------------------------------
_INTRO_REJECT = re.compile(r"\b(?:before(?=\s*(?:[:(\[—–-]|the (?:fix|change)|\*\*|$))|old|deprecated|wrong|incorrect|broken|don'?t|do not|never|avoid|not this|"
                           r"bad|failing|fails|crash(?:es|ed)?|what not to do|anti-?pattern|buggy|problem(?:atic)? (?:config|setting|version|line)s?|"
                           r"your current|currently|you have)\b", re.I)
_INTRO_AFFIRM = re.compile(r"\b(?:after|fixed|fix|corrected|correct|recommended|should be|becomes|new|use|set|keep the rest|so|switch to|"
                           r"try|start with|here is|here's|working|enable|turn on|apply|change (?:it )?to|"
                           r"replace (?:it|them|this) with|instead|adds?|alongside|next to the old|leav(?:e|ing) the old \w+ in)\b", re.I)
_ASIDE = re.compile(r"\([^()]*\)")
_DO = re.compile(r"\s*(?:then\s+)?(?:create|run|build|wrap|use|set|add|put|move|start|launch|call)\b", re.I)  # what to do
_SUBORDINATE = re.compile(r"\b(?:instead of|rather than|unlike|in place of|replacing)\b[^,:;]*[,;]?|"  # or a clause on a noun
                          r"(?<=\w)\s+(?:that|which|who)\s+(?:don'?t|do not|doesn'?t|does not|never|won'?t|can'?t|cannot)\b[^,:;]*", re.I)


def intro_polarity(intro: str, first_comment: str = "", section_era: str | None = None) -> Polarity:
    """A fenced block's role from its introducing sentence and its own first comment line."""
    era = era_of(first_comment) or era_of(intro) or section_era
    for cue in (first_comment, intro):
        cue = _ASIDE.sub(" ", cue)  # "(never combine moe with moe_router)" is an aside, not the block's role
        if not cue.strip():
            continue
        if _DOUBLE_NEG.search(cue):
            cue = _DOUBLE_NEG.sub(" ", cue)
        head = _OWN_PROHIBITION.sub(" ", _SUBORDINATE.sub(" ", cue))  # "Instead of X, use:" / "Don't hardcode." -> "use:"
        last = re.split(r":\s+", head.rstrip(": \t"))  # "Or avoid the legacy stream: create a side stream …:"
        if len(last) > 1 and _DO.match(last[-1]) and not _INTRO_REJECT.search(last[-1]):
            return Polarity(RECOMMENDED, era, "what its last clause says to do")
        reject = _INTRO_REJECT.search(head)
        affirm = _INTRO_AFFIRM.search(head)
        if reject and affirm:
            # the last cue wins: "Old (0.16): ... new:" rarely; "Don't use this:" -> reject
            last_reject = max(m.end() for m in _INTRO_REJECT.finditer(head))
            last_affirm = max(m.end() for m in _INTRO_AFFIRM.finditer(head))
            if re.search(r"\b(?:don'?t|do not|never|avoid)\b", head, re.I):
                return Polarity(REJECTED, era, "introduced as something to avoid")
            return _old_or_rejected(era, head) if last_reject > last_affirm else Polarity(RECOMMENDED, era)
        if reject:
            return _old_or_rejected(era, head)
        if affirm:
            return Polarity(RECOMMENDED, era)
        if _ALT.search(head):
            return Polarity(ALTERNATIVE, era, "introduced as an alternative")
    return Polarity(RECOMMENDED, era)


def _old_or_rejected(era: str | None, head: str) -> Polarity:
    """"Old (0.16-0.17):" is the legacy era's spelling; "Before:" / "Wrong:" without an era is rejected."""
    if era is not None and re.search(r"\b(?:old|before|deprecated|legacy)\b", head, re.I) and \
            not re.search(r"\b(?:wrong|incorrect|broken|bad|fails|crash|buggy|don'?t|do not|never|avoid)\b", head, re.I):
        return Polarity(RECOMMENDED, era, "era-specific (old spelling)")
    return Polarity(REJECTED, era, "introduced as old or wrong")


_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s+|\*\*|__)(.{1,160})$")


def heading_era(line: str, title: bool = False) -> tuple[bool, str | None]:
    """(is a heading, the era it names) for Markdown headings, bold lead lines, plain-text titles set
    between rules ("--- recipe 1 (full iteration) -----") and, with ``title``, a plain line known to stand alone."""
    m = _HEADING.match(line) or RULED_TITLE.match(line) or (re.match(r"\s*(.{1,160})$", line) if title else None)
    if not m:
        return False, None
    # "Tab: megatron-core 0.18+ (only once you upgrade; not on 0.16.1)": the aside does not name the section's era
    return True, era_of(m.group(1)) or era_of(re.sub(r"\([^()]*\)|\s[—–]\s.*$", " ", m.group(1)))
