"""Tell an error a run printed from an error a text quotes: where the error string sits.

People paste logs, and they also paste (or feed an agent) web pages, docs tables, FAQ answers and
issue prose that *name* an error: "If you've trained a model in PyTorch, you've hit this error:
RuntimeError: CUDA out of memory". Read line by line, both match the same signature. What tells them
apart is structure, not the error text:

- **inside a sentence**: the error string follows a lead-in of words ("All 3 runs failed with
  RuntimeError: ...", "The RuntimeError: CUDA out of memory occurs when ..."), or sits in a
  markdown table row or in backticks/quotes inside a line of words. A line a logger prefixed
  (time, level, rank) is output whatever it says, and so is a line inside a fenced code block;
- **on a page of prose**: the error line stands alone, but the text around it is sentences,
  headings and bullets, with no logger-prefixed line, no traceback frame, no iteration line;
- **a paste marker** keeps either one a real paste: the writer says they hit it ("I got",
  "we see", "I have encountered an error:", "The error I have is ...").

A quoted error is kept, but hedged: a warning that says the text quotes it and, if you hit it, what
the usual cause is - never a confident finding about a run the text does not show.

The line shapes are read while parsing (``LineShapes.feed``), for the first ``SHAPE_LINES`` lines
only: a text longer than that is a log, not a page that quotes one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from skill_tools.logs.prefix import strip

SHAPE_LINES = 5000  # lines read for their shape; longer texts are logs
MIN_PROSE = 3  # sentences a page needs before a lone error line in it reads as quoted
_WORD = re.compile(r"[(\"“]?[A-Za-z][A-Za-z'’-]*[.,;:!?)\"”]*$")
_CODE_SPAN = re.compile(r"`[^`\n]{1,80}`")  # `name` in prose reads as one word
_FUNCTION_WORDS = frozenset(
    "the a an is are was were be been to of and or in on for with that this it its as by from at if when "
    "you your we our can will may might should must not no do does how what which all any each every some "
    "before after into than then there these those they their has have had but so also only just about".split())
#: a word that, right before an error name, makes it the object of a sentence ("the RuntimeError", "with X")
_LEAD_WORDS = frozenset("the a an with like as by from of this that see get got hit reports report".split())
#: the writer says they ran into it (first person + an experience verb), or "the error I have/get"
PASTE_MARKER = re.compile(
    r"\b(?:i|i'm|i've|we|we're|we've)(?:\s+\w+){0,2}?\s+(?:got|get|gets|getting|hit|hitting|encounter\w*|meet|met|"
    r"ran into|run into|running into|receiv\w+|fac(?:e|ed|ing)|experienc\w+)\b"
    r"|\b(?:i|we)(?:\s+\w+)?\s+(?:see|saw|seeing|have|had)\s+(?:(?:this|the|an?|following|same|these)\s+)*"
    r"(?:error|exception|issue|problem|crash|failure|message)"
    r"|\b(?:error|errors|exception)s? (?:i|we) (?:get|got|have|had|see|saw)\b|\bmy (?:error|log|output)\b",
    re.IGNORECASE)
#: error-name prefixes between a lead-in and the needle ("RuntimeError: CUDA error: ", a quote, a backtick)
_ERROR_PREFIX = re.compile(
    r"(?:[A-Za-z_][\w.]*(?:Error|Exception|Warning)\w*\s*:?\s*|(?:CUDA|NCCL|cuda|nccl) error\s*:?\s*|[\"'`“‘(\[]\s*)+$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_FENCE = "```"
#: a line that opens like program output: "RuntimeError: ...", "ncclRemoteError: ...", "torch.x.Y: ...", "E ..."
_OUTPUT_START = re.compile(r"^\s*(?:[\w.]*(?:Error|Exception|Warning|Interrupt)\w*|[a-z]+[A-Z]\w*|\w+(?:\.\w+)+)\s*:")
#: python logging's default format ("ERROR:__main__:..."): a logged line the prefix reader does not strip
_LOGGING_LEVEL = ("ERROR:", "WARNING:", "INFO:", "CRITICAL:", "DEBUG:")
_CODE_SHAPE = re.compile(r"[:=/\\()\[\]{}_<>|0-9]")
_SENTENCE_END = re.compile(r"[.?!]\s+")


def _words(text: str) -> list[str]:
    return [t for t in _CODE_SPAN.sub("name", text).split() if _WORD.match(t)]


def is_prose(body: str) -> bool:
    """A sentence (or a heading/bullet/table line of words): six words or more, mostly plain words,
    with at least one function word; or a markdown heading or table row."""
    if _HEADING.match(body) or _TABLE_ROW.match(body):
        return True
    if _OUTPUT_START.match(body) or body.startswith(_LOGGING_LEVEL):
        return False
    content = _CODE_SPAN.sub("name", _BULLET.sub("", body, count=1))
    tokens = content.split()
    words = _words(content)
    if len(words) < 6 or len(words) < 0.7 * len(tokens):
        return False
    return any(w.rstrip(".,;:!?)").lower() in _FUNCTION_WORDS for w in words)


@dataclass
class LineShapes:
    """Shapes of the first SHAPE_LINES lines: prose vs output-like, fences, paste markers."""

    lines: int = 0
    prose: int = 0
    output: int = 0  # traceback headers/frames and other non-prose lines with an error or log shape
    markers: list[int] = field(default_factory=list)  # lines where the writer says they hit it
    fences: list[int] = field(default_factory=list)  # line numbers of ``` lines (open/close pairs)

    def feed(self, line_no: int, body: str) -> None:
        if line_no > SHAPE_LINES or not body.strip():
            return
        self.lines += 1
        if _FENCE in body:
            if len(self.fences) < 1000:
                self.fences.append(line_no)
            return
        if len(self.markers) < 100 and PASTE_MARKER.search(body):
            self.markers.append(line_no)
        if is_prose(body):
            self.prose += 1
        elif _CODE_SHAPE.search(body.rstrip().rstrip(":：")):
            self.output += 1

    def in_fence(self, line_no: int) -> bool:
        opened = [n for n in self.fences if n < line_no]
        return len(opened) % 2 == 1


def _lead_in(body: str, needle_at: int) -> str:
    """The words of the same sentence before the error string, error-name prefixes ("RuntimeError: ",
    quotes) removed: a message that ends one sentence and starts the error in the next has no lead-in."""
    lead = body[:needle_at]
    m = _ERROR_PREFIX.search(lead)
    lead = lead[: m.start()] if m else lead
    ends = list(_SENTENCE_END.finditer(lead))
    return lead[ends[-1].end():] if ends else lead


def where_quoted(body: str, needle_at: int) -> str | None:
    """'in a sentence' / 'in a table' when the error string at ``needle_at`` is embedded in words."""
    if _TABLE_ROW.match(body):
        return "in a table row"
    if " " not in body.strip():
        return "as a bare name (a heading or an API name, no message around it)"
    if _OUTPUT_START.match(body):  # "Exception: Capture cuda graph failed: ...": the program's own line
        return None
    lead = _lead_in(body, needle_at)
    if "what():" in lead:  # C++ terminate output: "terminate called after throwing ... what(): ..."
        return None
    tokens = _CODE_SPAN.sub("name", _BULLET.sub("", lead, count=1)).split()
    words = _words(" ".join(tokens))
    if len(words) < 0.8 * len(tokens):  # paths, numbers, host:pid, file:line: a log line's own prefix
        return None
    enclosed = body[needle_at - 1: needle_at] in ("`", "\"", "“", "'") or lead.rstrip().endswith(("`", "\"", "“"))
    if len(words) >= 3 or (words and words[-1].rstrip(".,;:").lower() in _LEAD_WORDS):
        return "inside a sentence"
    if enclosed and (words or _BULLET.match(body)):
        return "quoted inside a line of words"
    return None


def needle_position(sig: Any, body: str) -> int:
    """Where the signature's text starts in ``body`` (the exception name for derived findings)."""
    spots = [body.find(n) for n in getattr(sig, "needles", ()) if n in body]
    for contains, pattern in getattr(sig, "regex", ()):
        m = pattern.search(body) if contains in body else None
        if m:
            spots.append(m.start())
    if not spots:
        m = re.search(r"[A-Za-z_][\w.]*(?:Error|Exception)\b", body)
        return m.start() if m else 0
    return min(spots)


def page_of_prose(shapes: LineShapes, log: Any) -> bool:
    """The text reads as a page that quotes errors: sentences, no output of a run around them."""
    if shapes.lines == 0 or log.lines > SHAPE_LINES or shapes.markers or log.iterations or log.logged_lines:
        return False
    if any(e.n_frames for e in log.structure.exceptions):
        return False
    return shapes.prose >= MIN_PROSE and shapes.output <= shapes.prose


QUOTED_CAUSE = "The text quotes `{quote}` {where}; it does not show a run that hit it. If you hit it: {cause}"
_MARKER_REACH = 2  # a paste marker this many lines above an inline error still introduces it
_DERIVED = frozenset({"uncaught-exception", "error-logged"})


_CLOSING = {"`": "`", "\"": "\"", "“": "”", "'": "'"}


def _quote(body: str, at: int) -> str:
    """The quoted error as the text shows it: up to its closing quote when it is in quotes, else 80 characters."""
    close = _CLOSING.get(body[at - 1: at]) if at else None
    end = body.find(close, at) if close else -1
    text = body[at:end] if end > at else body[at:at + 80]
    return text.strip().rstrip("`\"”'.")


def hedge(failures: list[Any], log: Any, signature_of: Any) -> list[str]:
    """Turn findings whose error string is quoted (not printed by a run) into hedged warnings, in place.
    ``signature_of(id)`` gives the catalogue entry (for the needle position). Returns the notes."""
    shapes: LineShapes = log.shapes
    page = page_of_prose(shapes, log)
    hedged = 0
    for f in failures:
        if f.severity != "error" or f.line_no is None or f.line_no > SHAPE_LINES:
            continue
        pre, body = strip(f.evidence)
        if pre.logged or body.startswith(_LOGGING_LEVEL) or shapes.in_fence(f.line_no):
            continue
        if any(f.line_no - _MARKER_REACH <= n <= f.line_no for n in shapes.markers):
            continue
        sig = None if f.id in _DERIVED else signature_of(f.id)
        at = needle_position(sig, body)
        where = where_quoted(body, at) if sig is not None else None
        if where is None and page:
            where = (f"on a page of prose ({shapes.prose} sentence lines, {shapes.output} output-like lines; no "
                     "logger prefix, traceback frame or 'I got' marker)")
        if where is None:
            continue
        quote = _quote(body, at)
        f.cause = QUOTED_CAUSE.format(quote=quote, where=where, cause=f.cause)
        f.severity = "warning"
        f.quoted = True
        hedged += 1
    if not hedged:
        return []
    return [f"{hedged} error string(s) quoted in prose, not printed by a run: reported as warnings (if you hit one, "
            "paste the run's own output for a diagnosis)"]


def quoted_capture(log: Any, failures: list[Any]) -> str:
    """The capture status the text supports once quoted errors are set aside: when every line behind the
    status is a hedged finding's line (or the text is a page of prose), the text only mentions graphs."""
    status = log.evidence.status
    if status in ("unknown", "mentioned"):
        return status
    hedged = {f.line_no for f in failures if getattr(f, "quoted", False)}
    backing = [e.line_no for e in log.evidence.items if e.kind == status]
    if hedged and backing and set(backing) <= hedged:
        return "mentioned"
    if page_of_prose(log.shapes, log) and not any(f.severity == "error" for f in failures):
        return "mentioned"
    return status
