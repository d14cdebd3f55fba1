"""The option structure of an answer: which of the configs it writes is the recommendation and which
are options offered beside it.

People lay out choices in a few ways, and each one is read here, never merged into one config:
- "Choose one:" / "You have two good options." then one block per option: the first option with
  settings is the recommendation, each later one an alternative;
- labelled options ("**Option A — …**", "### Option 2: full iteration", "Alternative:", "Plan B",
  a roadmap's "Phase 1 (now)" / "Phase 3 (max speedup)"):
  everything under the first label is the recommendation, everything under a later label an
  alternative, until a heading of the same or a higher level that is not an option;
- a step list ("start here", then "keep only if the A/B wins") is read by :mod:`prose` (tables).

Alternatives are not dropped: the scorer validates them on the task (:mod:`alternatives`), since
an option a user would try is advice too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from skill_tools.evaluation.described import RULED_TITLE
from skill_tools.evaluation.file_names import NAMED_PART
from skill_tools.evaluation.fragments import SUGGESTED, Block
from skill_tools.evaluation.polarity import ALTERNATIVE

#: "Choose one:", "two ways", "You have two good options.", "a couple of alternatives", "Both work:".
HEDGE = re.compile(r"\b(?:choose one|pick one|one of (?:these|the following|two)|either (?:of these|way)|"
                   r"both (?:work|are (?:fine|valid|supported|ok|options))\b|either (?:works|one works|is fine)\b|"
                   r"(?:two|three|several|a few|a couple of)\s+(?:[a-z]+\s+){0,2}?"
                   r"(?:ways|options|alternatives|choices|approaches|paths|routes|setups|configs|configurations|"
                   r"fixes|solutions)\b|(?:have|need|must|get) to (?:choose|pick|decide)\b|"
                   r"\b(?:choose|pick|decide) between\b|"
                   # a list of runs, one change each: every item is a run of its own
                   r"\b(?:run|try) the following\b|\b(?:the following|these)\s+(?:runs|experiments|variants|bisect steps)\b|"
                   r"\bone (?:change|thing|difference) per run\b|"
                   # the same in the other languages answers come in
                   r"\b(?:dos|tres|deux|trois|zwei|drei|due|tre|duas|três)\s+(?:\w+\s+)?(?:opciones|salidas|caminos|formas|"
                   r"maneras|soluciones|alternativas|options|solutions|façons|possibilités|optionen|wege|möglichkeiten|"
                   r"lösungen|opzioni|soluzioni|strade|opções|soluções|caminhos)\b|"
                   r"(?:два|две|три)\s+(?:варианта|способа|пути)|两种|兩種|二つの|2つの|두 가지)", re.I)
#: A line that labels an option: "Option A", "**Option 2 —", "Alternative:", "Plan B", "Approach 2".
_LABEL = re.compile(r"^\s{0,3}(?:#{1,6}\s+|[-=]{2,}\s*|[-*+]\s+|\d{1,2}[.)]\s+)?(?:\*\*|__)?\s*"
                    r"(?:(option|approach|plan|path|route|choice|variant|phase)\s*(?:[a-d1-4]\b|one\b|two\b|three\b)|"
                    r"(alternative|fallback|plan b)(?:\*\*|__)?\s*(?:[:—–(-]|(?:\*\*|__)?\s*$))", re.I)
#: A numbered or lettered bold lead ("**1. Keep TE graphs ...**", "__B)__ full iteration").
_NUMBERED_LEAD = re.compile(r"^\s{0,3}(?:#{1,6}\s+)?(?:\*\*|__)\s*([1-4]|[a-dA-D])[.):]\s")
#: A plain numbered list item ("1. Graphs on attention, no offloading:"), an option after a hedge.
_PLAIN_ITEM = re.compile(r"^\s{0,3}([1-4])[.)]\s+\S")
_ORDINAL = re.compile(r"\b(?:[a1]|one)\b", re.I)
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)]|:[\w -]{1,30}:)\s+\S")  # a reStructuredText field (":rng: …") too
_HEADING_LEVEL = re.compile(r"^\s{0,3}(#{1,6})\s")


@dataclass
class Section:
    """What the answer's structure says at the current line."""

    era: str | None = None  # the era named by the latest heading
    hedge: int | None = None  # block groups seen since "choose one:" (None: no hedge open)
    option: int | None = None  # index of the labelled option we are in (None: not in one)
    option_level: int = 7  # heading level of the option labels (7: bold leads / list items)
    items: bool = False  # the options are the items of a numbered list that follows a hedge
    asker: str | None = None  # in a chat transcript, the speaker who asked (their lines are the question)
    phased: bool = False  # the labels are a runbook's phases ("## Phase 0 — profile", "## Phase 2 — TE on attn")
    first: int | None = None  # the first phase that writes a config (earlier phases only prepare)
    in_item: bool = False  # the last prose line belongs to a list item (its first line or an indented continuation)
    part: str | None = None  # the config a Markdown heading names ("### Recipe 2: TE-scoped graphs")

    def heading(self, line: str, era: str | None) -> None:
        """A Markdown heading or bold lead line: an option label opens an option; another heading
        of the same or a higher level closes the option list."""
        level_m = _HEADING_LEVEL.match(line)
        level = len(level_m.group(1)) if level_m else 1 if RULED_TITLE.match(line) else 7  # "--- recipe 2 ---"
        self.era = era
        if level < 7:  # the blocks under "### Recipe 2" write recipe 2's config, as under a line naming it
            part = NAMED_PART.search(line)
            self.part = part.group(1).lower() if part else None
        if self.label(line):
            return
        self.hedge = None
        self.items = False
        if self.option is not None and level <= self.option_level and level < 7:
            self.option = None

    def label(self, line: str) -> bool:
        """An option label on ``line`` (heading, bold lead or list item): moves to the next option."""
        m = _LABEL.match(line)
        n = None if m else _NUMBERED_LEAD.match(line)
        if not m and not n and (self.hedge is not None or self.items):  # "You have to choose:\n1. …\n2. …"
            n = _PLAIN_ITEM.match(line)
            self.items = n is not None or (self.items and line[:1] in (" ", "\t"))  # until the list ends
        # after "two setups": "**1. ...**"; lettered leads ("**A. ...**", "**B. ...**") are options by
        # themselves, in any language, where numbered ones may be steps
        if n and (self.hedge is not None or self.option is not None or n.group(1).isalpha()):
            self.option = 0 if n.group(1) in ("1", "a", "A") else (self.option or 0) + 1
            self.option_level = 7
            self.hedge = None
            return True
        if not m:
            return False
        level_m = _HEADING_LEVEL.match(line)
        self.option_level = len(level_m.group(1)) if level_m else 7
        self.phased = (m.group(1) or "").lower() == "phase"
        if m.group(2):  # "Alternative:", "Fallback": never the first option
            self.option = max(1, (self.option or 0) + (1 if self.option is not None else 0))
        elif self.option is None:
            first = _ORDINAL.search(line[m.start(1):m.end()]) is not None
            self.option = 0 if first else 1
        else:
            self.option += 1
        self.hedge = None
        return True

    def mark(self, blocks: Iterable[Block]) -> Iterator[Block]:
        """Blocks of a later option, or of a later group after "choose one", become alternatives; each
        block keeps the labelled option it sits in (``Block.option``)."""
        blocks = list(blocks)
        for b in blocks:
            b.option = self.option
            if b.file is None and self.part is not None and b.origin in ("fenced", "unfenced", "table"):
                b.file = self.part
        if self.phased and self.first is None and any(b.role == SUGGESTED and b.origin in ("fenced", "unfenced")
                                                      for b in blocks):
            self.first = self.option  # a runbook's phases: the first phase that writes a config is the plan
        later = self.option is not None and self.option >= 1 + ((self.first or 0) if self.phased else 0)
        if self.hedge is not None and any(b.role == SUGGESTED for b in blocks):
            later = later or self.hedge >= 1
            self.hedge += 1
        if later:
            for b in blocks:
                if b.role == SUGGESTED:
                    b.role, b.why = ALTERNATIVE, b.why or "a later option"
        yield from blocks

    def prose_line(self, text: str) -> None:
        """After a line of prose: "Choose one:" opens a hedge. Inside a list item ("1. **`moe` + `moe_router`
        is refused.** … You have to pick one.", also on the item's indented continuation lines) the choice
        is that item's own, and the items after it are the list's next points, not options; an item
        that ends on a colon still introduces them."""
        m = HEDGE.search(text)
        # a list item's own lines: the item line, and the indented lines that continue it
        in_item = bool(_ITEM.match(text)) or (self.in_item and text[:1] in (" ", "\t") and bool(text.strip()))
        self.in_item = in_item
        if m and (not in_item or text.rstrip().endswith(":")):
            self.hedge = 0


def plain_title(lines: list[str], idx: int, end: int) -> bool:
    """A plain-text title: a short line alone between blank lines, with no sentence end and not a list
    item or table row ("▸ Tab: megatron-core 0.18+ (only once you upgrade)" over its block)."""
    text = lines[idx].strip()
    return bool(text) and len(text) <= 120 and (idx == 0 or not lines[idx - 1].strip() or lines[idx - 1].lstrip().startswith(("```", "~~~"))) and \
        (idx + 1 >= end or not lines[idx + 1].strip()) and not re.search(r"[.;:,!?]$", text) and \
        not re.match(r"[-*+|>#]|\d{1,2}[.)]\s", text)
