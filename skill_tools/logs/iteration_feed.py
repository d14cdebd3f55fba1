"""The per-iteration side of the streaming parse: runs of iteration lines read a block at a time
(``fastpath.py``), single iteration lines read with their timestamp, the Bridge ``Step Time`` line
glued to them, and lines a terminal wrapped in two.

A mixin of the parser (``parse._Parser``): it reads and writes the parser's table, schema
patterns, pending wrapped line and interval marks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skill_tools.logs import formats as F
from skill_tools.logs.fastpath import IT_GROUP, Block
from skill_tools.logs.lineparts import TIMESTAMP, line_has_nan, may_continue
from skill_tools.logs.reader import split_rank

_MIN_BLOCK_ROWS = 16  # shorter runs of iteration lines are read line by line (numpy set-up costs more)
_STEP_LINES = 256  # lines read one by one before looking for an iteration-line schema again


class IterationFeed:
    """Block and line readers for per-iteration lines (mixed into the parser)."""

    # -- per block ----------------------------------------------------------------------------------
    def feed_batch(self, base: int, lines: list[str]) -> None:
        """Lines ``base + 1`` ... of the log. Runs of plain iteration lines of the current schema are
        stored as one block (fastpath.py); every other line goes through ``feed_raw`` in its place.
        Until an iteration line has set the schema, lines are read one by one, in small steps."""
        start, n = 0, len(lines)
        while start < n:
            keys = self.table.current_keys
            rx = self.patterns.get(keys)
            if keys is None or rx is None:
                stop = min(n, start + _STEP_LINES)
                for i in range(start, stop):
                    self.feed_raw(base + i + 1, lines[i])
                start = stop
                continue
            todo = lines[start:] if start else lines
            rows = rx.findall("\n".join(todo))
            if len(rows) != len(todo):  # cannot happen for lines without "\n"; be safe anyway
                for i in range(start, n):
                    self.feed_raw(base + i + 1, lines[i])
                return
            first = 0
            for i in [i for i, r in enumerate(rows) if not r[IT_GROUP]] + [len(rows)]:
                if i - first >= _MIN_BLOCK_ROWS:
                    self._block(base + start + first + 1, todo, first, rows[first:i], keys)
                else:  # a few iteration lines between other lines: cheaper one by one
                    for j in range(first, i):
                        self.feed_raw(base + start + j + 1, todo[j])
                if i < len(rows):
                    self.feed_raw(base + start + i + 1, todo[i])
                first = i + 1
            return

    def _block(self, first_line_no: int, lines: list[str], offset: int, rows: list[tuple[str, ...]],
               keys: tuple[str, ...]) -> None:
        if self.pending is not None:  # a held line cannot continue into a complete iteration line
            pl, prank, ptext, praw = self.pending
            self.pending = None
            self._try_iteration(pl, prank, ptext, praw, final=True)
        self.timer_block = False
        b = Block(rows)
        if self.need_first_line:
            self.log.first_line = split_rank(lines[offset])[1].strip()[:200]
            self.need_first_line = False
        if b.rank[0] >= 0 or b.rank[-1] >= 0 or (b.rank >= 0).any():
            self.ranks.update(np.unique(b.rank[b.rank >= 0]).tolist())
        n_us = int(np.count_nonzero(b.ts_len > 19))
        n_plain = int(np.count_nonzero(b.ts_len == 19))
        self.n_ts_us += n_us
        self.n_ts_plain += n_plain
        self.n_no_ts += len(rows) - n_us - n_plain
        step, self.pending_step = self.pending_step, None
        marks: tuple[str, ...] = ()
        if self.marks:
            marks = tuple(sorted(self.marks))
            self.marks = set()
        self.table.add_block(first_line_no, keys, b.rank, b.ts, b.ts_len, b.it, b.total, b.values, step, marks)
        for j in b.nan_rows(keys).tolist():
            r = int(b.rank[j])
            self._nan(first_line_no + j, lines[offset + j], r if r >= 0 else None)

    def _try_iteration(self, line_no: int, rank: int | None, text: str, raw: str, *, final: bool) -> bool:
        """Parse ``text`` as an iteration line if it is one. A line that does not end with ``|`` may
        have been wrapped by a terminal: unless ``final``, it is held until the next line says."""
        i = text.find(F.ITERATION_NEEDLE)
        if i < 0 or " |" not in text:
            return False
        while i >= 0:  # "saving checkpoint at iteration ..." may precede a glued iteration line
            m = F.ITERATION_HEAD.match(text, i)
            if m is not None:
                if not final and len(text) < 65536 and may_continue(text):
                    self.pending = (line_no, rank, text, raw)
                    return True
                self._iteration(line_no, rank, text, raw, i, m)
                return True
            i = text.find(F.ITERATION_NEEDLE, i + 1)
        return False

    def _iteration(self, line_no: int, rank: int | None, text: str, raw: str, i: int, m: Any) -> None:
        end = m.end()
        bar = text.rfind("|")
        junk = ""
        if bar >= end:
            tail = text[bar + 1:]
            if tail and not tail.isspace():
                k, sep, _ = tail.rpartition(": ")
                if not (tail[:1] == " " and sep and k[1:2].islower()):  # §6.3: last field without " |"
                    junk, text = tail, text[: bar + 1]
        head = text[:i]
        ts_text: str | None = None
        # " [2026-07-28 10:15:32.731983] " (core_v0.16+) or " [2025-09-05 16:08:14] " (<=0.15, Bridge)
        close = head.rfind("]")
        ts = head[head.rfind("[", 0, close) + 1: close] if close > 0 else ""
        if len(ts) >= 19 and TIMESTAMP.fullmatch(ts) is not None and not head[close + 1:].strip():
            ts_text = ts
            head = head[: close - len(ts) - 1]
            if len(ts) > 19:
                self.n_ts_us += 1
            else:
                self.n_ts_plain += 1
        else:
            self.n_no_ts += 1
        if "MODEL_TFLOP/s/GPU" in head:  # Bridge's Step Time line glued onto the iteration line
            ms = F.BRIDGE_STEP_TIME.search(head)
            if ms:
                self.pending_step = (float(ms.group("s")), float(ms.group("tf")))
                self.bridge_markers += 1
                head = head[: ms.start()]
        step, self.pending_step = self.pending_step, None
        marks: tuple[str, ...] = ()
        if self.marks:
            marks = tuple(sorted(self.marks))
            self.marks = set()
        self.table.add(line_no, rank, int(m.group("it")), int(m.group("total")), ts_text, text, end, step, marks)
        if "MODEL_TFLOP/s/GPU" in junk:  # Bridge's Step Time of the next iteration, newline lost
            ms = F.BRIDGE_STEP_TIME.search(junk)
            if ms:
                self.pending_step = (float(ms.group("s")), float(ms.group("tf")))
                self.bridge_markers += 1
        # Cheap NaN screen on the printed text before converting anything.
        if "nan iterations:   0 |" not in text or ": nan" in text or "inf " in text:
            if line_has_nan(text[end:]):
                self._nan(line_no, raw, rank)
        # Other ranks' text glued before/after the fields can still carry an error.
        if junk or (head and not head.isspace()):
            for glued in (head, junk):
                if len(glued.strip()) > 3:
                    self._diagnose(line_no, rank, glued, raw)
