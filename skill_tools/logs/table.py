"""Per-iteration lines stored as columns: a million-line log in tens of MB, read with numpy.

A long run logged with ``--log-interval 1`` prints one iteration line per step: a million lines
for a week-long job. Keeping each line (or an object per line) costs gigabytes; this table keeps
numbers only, eight bytes per field, parsed in batches:

- the field keys of an iteration line (``consumed samples``, ``elapsed time per iteration (ms)``,
  ``lm loss``, ...) repeat from line to line, so each distinct key sequence (a *schema*) gets one
  compiled regular expression that captures all its values in one match;
- values are collected as strings for up to ``BATCH`` rows and converted by numpy at once;
- lines that fit no schema (odd spacing, a value with spaces) are split field by field.

``iterations.py`` gives the sequence API the rest of the package uses on top of this table.
"""

from __future__ import annotations

import math
import re
import warnings
from array import array
from bisect import bisect_right
from typing import Any

import numpy as np

from skill_tools.logs import formats as F

BATCH = 32768
MAX_SCHEMAS = 64
COUNT_FIELDS = frozenset(
    {"consumed_samples", "skipped_samples", "global_batch_size", "skipped_iterations", "nan_iterations"}
)
ATTR_TO_KEY = {attr: key for key, attr in F.FIELD_KEYS.items()}


def _num(text: str | None) -> float:
    try:
        return float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def split_fields(rest: str) -> tuple[dict[str, str], str]:
    """`` key: value |`` fields -> ({key: printed value}, glued text that is not a field).

    Genuine fields start with one space after ``|`` and have a lower-case key; another rank's text
    glued after the last ``|`` (``|Number of ...``) does not.
    """
    fields: dict[str, str] = {}
    junk = ""
    for piece in rest.split("|"):
        if piece[:1] == " ":
            key, sep, val = piece.rpartition(": ")
            if sep and key[1:2].islower():
                fields[key[1:]] = val
                continue
        if piece.strip():
            junk += piece
    return fields, junk


def datetimes(texts: list[str] | tuple[str, ...]) -> np.ndarray:
    """Printed timestamps -> datetime64[us]; one that is not a date ("2026-13-45 ...") becomes NaT."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's note about timezone offsets
            return np.array(texts, dtype="datetime64[us]")
    except ValueError:
        out = np.empty(len(texts), dtype="datetime64[us]")
        for i, t in enumerate(texts):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out[i] = np.datetime64(t, "us")
            except ValueError:
                out[i] = np.datetime64("NaT", "us")
        return out


def _schema_regex(keys: tuple[str, ...]) -> re.Pattern[str]:
    parts = [r" *" + re.escape(k) + r": *(\S*) *" for k in keys]
    return re.compile(r"\|".join(parts))


class _Chunk:
    __slots__ = ("start", "keys", "values")

    def __init__(self, start: int, keys: tuple[str, ...], values: np.ndarray):
        self.start, self.keys, self.values = start, keys, values


class IterationTable:
    """Append-only store of iteration rows; ``finish`` orders them by iteration (last line wins)."""

    def __init__(self) -> None:
        self.it = array("q")
        self.total = array("q")
        self.line_no = array("q")
        self.rank = array("i")
        self.step_s = array("d")
        self.mtf = array("d")
        self.ts_len = array("b")
        self._ts: list[str] = []
        self._ts_chunks: list[np.ndarray] = []
        self.marks: dict[int, tuple[str, ...]] = {}
        self.chunks: list[_Chunk] = []
        self._schemas: dict[tuple[str, ...], re.Pattern[str]] = {}
        self._cur_keys: tuple[str, ...] | None = None
        self._cur_rx: re.Pattern[str] | None = None
        self._rows: list[Any] = []
        self._rows_keys: tuple[str, ...] | None = None
        self._rows_start = 0
        self.n = 0
        # after finish(): row order (sorted by iteration, duplicates dropped) and caches
        self.order: np.ndarray | None = None
        self._columns: dict[str, np.ndarray] = {}
        self._starts: list[int] = []
        self.restarts = 0

    # -- building ---------------------------------------------------------------------------------
    def add(self, line_no: int, rank: int | None, it: int, total: int, ts: str | None, text: str, pos: int,
            step: tuple[float, float] | None, marks: tuple[str, ...]) -> None:
        """One iteration line; ``text[pos:]`` holds its `` key: value |`` fields."""
        row = self.n
        self.n += 1
        self.it.append(it)
        self.total.append(total)
        self.line_no.append(line_no)
        self.rank.append(-1 if rank is None else rank)
        if step is None:
            self.step_s.append(math.nan)
            self.mtf.append(math.nan)
        else:
            self.step_s.append(step[0])
            self.mtf.append(step[1])
        self.ts_len.append(len(ts) if ts else 0)
        self._ts.append(ts or "NaT")
        if marks:
            self.marks[row] = marks
        rx = self._cur_rx
        if rx is not None:
            m = rx.match(text, pos)
            if m is not None and text.find(": ", m.end()) < 0:
                self._rows.append(m.groups())
                if len(self._rows) >= BATCH:
                    self._flush()
                return
        self._slow(row, text, pos)

    @property
    def current_keys(self) -> tuple[str, ...] | None:
        """Key sequence of the last iteration line stored (the schema the next one most likely has)."""
        return self._cur_keys

    def add_block(self, first_line_no: int, keys: tuple[str, ...], rank: np.ndarray, ts: tuple[str, ...],
                  ts_len: np.ndarray, it: np.ndarray,
                  total: np.ndarray, values: np.ndarray, step: tuple[float, float] | None,
                  marks: tuple[str, ...]) -> None:
        """Consecutive iteration lines (``first_line_no`` onwards; ``rank`` -1 where unprefixed) already converted:
        ``values`` holds one column per key. ``step`` and ``marks`` belong to the first row."""
        n = len(it)
        if not n:
            return
        self._flush()  # rows collected one by one before this block keep their place
        row = self.n
        self.it.frombytes(it.astype(np.int64).tobytes())
        self.total.frombytes(total.astype(np.int64).tobytes())
        self.line_no.frombytes(np.arange(first_line_no, first_line_no + n, dtype=np.int64).tobytes())
        self.rank.frombytes(rank.astype(np.int32).tobytes())
        step_s = np.full(n, math.nan)
        mtf = np.full(n, math.nan)
        if step is not None:
            step_s[0], mtf[0] = step
        self.step_s.frombytes(step_s.tobytes())
        self.mtf.frombytes(mtf.tobytes())
        self.ts_len.frombytes(ts_len.astype(np.int8).tobytes())
        self._flush_ts()
        self._ts_chunks.append(datetimes(ts if all(ts) else [t or "NaT" for t in ts]))
        if marks:
            self.marks[row] = marks
        self.chunks.append(_Chunk(row, keys, values))
        self.n += n
        self._rows_start = self.n
        self._rows_keys = keys
        self._cur_keys, self._cur_rx = keys, self._schemas.get(keys)

    def _slow(self, row: int, text: str, pos: int) -> None:
        fields, _ = split_fields(text[pos:])
        keys = tuple(fields)
        rx = self._schemas.get(keys)
        if rx is None and keys and len(self._schemas) < MAX_SCHEMAS:
            rx = self._schemas[keys] = _schema_regex(keys)
        if keys != self._rows_keys or rx is None:
            self._flush()
            self._rows_keys, self._rows_start = keys, row
        self._cur_keys, self._cur_rx = (keys, rx) if rx is not None else (None, None)
        if rx is None:  # more schemas than we keep: store this row on its own
            self._flush()
            self._rows_keys, self._rows_start = keys, row
            self._rows.append(tuple(fields.values()))
            self._flush()
            return
        self._rows.append(tuple(fields.values()))

    def _flush(self) -> None:
        if self._rows:
            keys = self._rows_keys or ()
            try:
                values = np.array(self._rows, dtype=np.float64)
            except ValueError:  # a value that is not a number ("N/A"): convert one by one
                values = np.array([[_num(v) for v in r] for r in self._rows], dtype=np.float64)
            if values.ndim != 2:
                values = values.reshape(len(self._rows), len(keys))
            self.chunks.append(_Chunk(self._rows_start, keys, values))
            self._rows_start += len(self._rows)
            self._rows = []
        if len(self._ts) >= BATCH:
            self._flush_ts()

    def _flush_ts(self) -> None:
        if self._ts:
            self._ts_chunks.append(datetimes(self._ts))
            self._ts = []

    def finish(self) -> None:
        self._flush()
        self._flush_ts()
        self._rows_keys = None
        self.ts = np.concatenate(self._ts_chunks) if self._ts_chunks else np.array([], dtype="datetime64[us]")
        self._ts_chunks = []
        self._starts = [c.start for c in self.chunks]
        it = np.frombuffer(self.it, dtype=np.int64) if self.n else np.zeros(0, dtype=np.int64)
        if self.n and np.all(it[1:] > it[:-1]):
            self.order = np.arange(self.n)
            return
        # Keep the last line of each iteration number (a restart from a checkpoint re-logs them).
        rev = it[::-1]
        _, first_in_rev = np.unique(rev, return_index=True)
        keep = (self.n - 1 - first_in_rev)
        self.order = keep  # np.unique sorts by iteration
        dup = self.n - len(keep)
        if dup:
            kept = set(keep.tolist())
            last_row = {int(it[r]): int(r) for r in keep}
            self.restarts = sum(1 for r in range(self.n) if r not in kept and self._differs(r, last_row[int(it[r])]))

    def _differs(self, a: int, b: int) -> bool:
        return self.row_fields(a) != self.row_fields(b)

    # -- reading ----------------------------------------------------------------------------------
    def row_fields(self, row: int) -> dict[str, float]:
        i = bisect_right(self._starts, row) - 1
        if i < 0:
            return {}
        c = self.chunks[i]
        vals = c.values[row - c.start]
        return dict(zip(c.keys, vals.tolist()))

    def value(self, row: int, key: str) -> float | None:
        i = bisect_right(self._starts, row) - 1
        if i < 0:
            return None
        c = self.chunks[i]
        try:
            j = c.keys.index(key)
        except ValueError:
            return None
        return float(c.values[row - c.start, j])

    def raw_column(self, key: str) -> np.ndarray:
        """Values of ``key`` for every stored row (NaN where a row lacks it), in line order."""
        col = self._columns.get(key)
        if col is None:
            col = np.full(self.n, np.nan)
            for c in self.chunks:
                if key in c.keys:
                    col[c.start:c.start + len(c.values)] = c.values[:, c.keys.index(key)]
            self._columns[key] = col
        return col

    def keys(self) -> list[str]:
        seen: dict[str, None] = {}
        for c in self.chunks:
            for k in c.keys:
                seen.setdefault(k, None)
        return list(seen)

    def timestamp(self, row: int) -> str | None:
        n = self.ts_len[row]
        if not n:
            return None
        s = np.datetime_as_string(self.ts[row], unit="us").replace("T", " ")
        return s[:n]
