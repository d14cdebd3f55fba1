"""Readers of single lines that the streaming parser calls: memory reports, the pieces of a
terminal-wrapped iteration line, the NaN screen of an iteration line's fields.

Kept apart from parse.py (the state machine) so each can be read and tested on its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from skill_tools.logs import formats as F
from skill_tools.logs.fastpath import LAST_KEY
from skill_tools.logs.table import split_fields

_NAN_KEY = "number of nan iterations"

# One `` key: value `` field, as the piece of a wrapped line before and after the break must form.
_FIELD_PIECE = re.compile(r" ?[a-z][^|:]*: +(\S+) *\Z")


def continues(ptext: str, text: str) -> bool:
    """Whether ``text`` is the rest of the iteration line ``ptext`` that a terminal wrapped. The wrap
    falls anywhere: mid-key ("...per iterati" + "on (ms): 69179.8 | ..."), mid-value ("(ms): 69" +
    "179.8 | ..."), before a bar (" | number of nan ..."). The text around the break must form one
    `` key: number `` field (or the break is at a bar), so a Bridge line without a trailing bar is not
    glued to the unrelated line after it."""
    if not text:
        return False
    tail = ptext[ptext.rfind("|") + 1:]
    bar = text.find("|")
    piece = tail + (text if bar < 0 else text[:bar])
    if not piece.strip():
        return bar >= 0
    m = _FIELD_PIECE.match(piece)
    return m is not None and F.to_float(m.group(1)) is not None


_LAST_FIELD = LAST_KEY + ":"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?")


def may_continue(text: str) -> bool:
    """An iteration line that a terminal may have wrapped: it does not end with a bar, or it ends
    with one (the wrap fell just after it) before the last field was printed."""
    stripped = text.rstrip()
    if stripped[-1:] != "|":
        return True
    return _LAST_FIELD not in text[text.rfind("|", 0, len(stripped) - 1):]


def line_has_nan(rest: str) -> bool:
    """NaN/Inf in a loss or the grad norm, or a non-zero nan-iteration count, in the printed fields."""
    fields, _ = split_fields(rest)
    for k, v in fields.items():
        if k == _NAN_KEY:
            x = F.to_float(v)
            if x:
                return True
        elif k == "grad norm" or (k.endswith("loss") and k not in F.FIELD_KEYS):
            x = F.to_float(v)
            if x is not None and not math.isfinite(x):
                return True
    return False


@dataclass
class MemoryReport:
    """One ``[Rank N] (...) memory (MB|GB) | ...`` line, converted to MiB."""

    line_no: int
    rank: int
    when: str
    after_iteration: int | None
    allocated_mib: float | None
    max_allocated_mib: float | None
    reserved_mib: float | None
    max_reserved_mib: float | None
    unit: str


def parse_memory(line_no: int, text: str) -> list[MemoryReport]:
    """All memory reports on a line (two ranks' reports can be glued onto one line)."""
    out = []
    for chunk in text.split("[Rank ")[1:]:
        m = F.MEMORY.match("[Rank " + chunk)
        if m is not None:
            out.append(_memory_report(line_no, m))
    return out


def _memory_report(line_no: int, m: Any) -> MemoryReport:
    values: dict[str, float] = {}
    for piece in m.group("rest").split("|"):
        key, sep, val = piece.strip().rpartition(": ")
        if sep:
            num = F.to_float(val.strip())
            if num is not None:
                values[key] = num
    unit = m.group("unit")
    if unit == "GB":  # Bridge: bytes / 1e9, renamed keys
        values = {
            F.BRIDGE_MEMORY_KEYS[k]: v * 1e9 / F.MIB for k, v in values.items() if k in F.BRIDGE_MEMORY_KEYS
        }
    when = m.group("when")
    it = F.MEMORY_AFTER_ITER.search(when)
    return MemoryReport(
        line_no=line_no,
        rank=int(m.group("rank")),
        when=when,
        after_iteration=int(it.group(1)) if it else None,
        allocated_mib=values.get("allocated"),
        max_allocated_mib=values.get("max allocated"),
        reserved_mib=values.get("reserved"),
        max_reserved_mib=values.get("max reserved"),
        unit=unit,
    )
