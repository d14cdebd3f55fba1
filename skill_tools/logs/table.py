"""Per-iteration lines stored as columns: a million-line log in tens of MB, read with numpy.

A long run logged with ``--log-interval 1`` prints one iteration line per step: a million lines
for a week-long job. Keeping each line (or an object per line) costs gigabytes; this table keeps
numbers only, eight bytes per field, parsed in batches:

- the field keys of an iteration line (``consumed samples``, ``elapsed time per iteration (ms)``,
  ``lm loss``, ...) repeat from line to line, so each distinct key sequence (a *schema*) gets one
  compiled regular expression that captures all its values in one match;
- values are collected as strings for up to ``BATCH`` rows and converted by numpy at once;
- lines that fit no schema (odd spacing, a value with spaces) are split field by field.

``IterationList`` gives the sequence API the rest of the package uses (``len``, indexing,
slicing, iteration) by making a light ``Iteration`` view on demand, and numpy columns
(``column(key)``, ``numbers``) for statistics.
"""

from __future__ import annotations

import math
import re
from array import array
from bisect import bisect_right
from typing import Any, Iterator

import numpy as np

from skill_tools.logs import formats as F

BATCH = 32768
MAX_SCHEMAS = 64
_COUNT_FIELDS = frozenset(
    {"consumed_samples", "skipped_samples", "global_batch_size", "skipped_iterations", "nan_iterations"}
)
_ATTR_TO_KEY = {attr: key for key, attr in F.FIELD_KEYS.items()}


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
            try:
                chunk = np.array(self._ts, dtype="datetime64[us]")
            except ValueError:  # a timestamp numpy cannot read (a garbled line): that one is NaT
                chunk = np.array([_datetime(t) for t in self._ts], dtype="datetime64[us]")
            self._ts_chunks.append(chunk)
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


class Iteration:
    """One per-iteration log line (an average over the logging interval that ends here), as a view
    on the table. Field attributes (``elapsed_ms``, ``grad_norm``, ...) are None when not printed."""

    __slots__ = ("_t", "_row")

    def __init__(self, table: IterationTable, row: int):
        self._t, self._row = table, row

    iteration = property(lambda self: int(self._t.it[self._row]))
    train_iters = property(lambda self: int(self._t.total[self._row]))
    line_no = property(lambda self: int(self._t.line_no[self._row]))
    timestamp = property(lambda self: self._t.timestamp(self._row))
    marks = property(lambda self: self._t.marks.get(self._row, ()))

    @property
    def rank(self) -> int | None:
        r = self._t.rank[self._row]
        return None if r < 0 else r

    @property
    def step_time_s(self) -> float | None:
        v = self._t.step_s[self._row]
        return None if math.isnan(v) else v

    @property
    def model_tflops_per_gpu(self) -> float | None:
        v = self._t.mtf[self._row]
        return None if math.isnan(v) else v

    def __getattr__(self, attr: str) -> float | None:
        key = _ATTR_TO_KEY.get(attr)
        if key is None:
            raise AttributeError(attr)
        return self._t.value(self._row, key)  # NaN when printed as nan (or not a number)

    def _numbers(self) -> dict[str, float]:
        return {k: v for k, v in self._t.row_fields(self._row).items()}

    @property
    def fields(self) -> dict[str, str]:
        """Every `` key: value |`` field (numbers re-printed; the text itself is not kept)."""
        return {k: repr(v) for k, v in self._numbers().items()}

    @property
    def losses(self) -> dict[str, float]:
        """Named losses (``lm loss``, ``mtp_1 loss``, ``load_balancing_loss``, ...)."""
        return {k: v for k, v in self._numbers().items() if k.endswith("loss") and k not in F.FIELD_KEYS}

    @property
    def extra(self) -> dict[str, float]:
        """Numeric fields with no fixed meaning (MoE metrics, energy, max attention logit, ...)."""
        return {k: v for k, v in self._numbers().items() if k not in F.FIELD_KEYS and not k.endswith("loss")}

    def has_nan(self) -> bool:
        if self.nan_iterations:
            return True
        for v in (self.grad_norm, *self.losses.values()):
            if v is not None and not math.isfinite(v):
                return True
        return False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"iteration": self.iteration, "train_iters": self.train_iters, "line_no": self.line_no}
        ts = self.timestamp
        if ts:
            out["timestamp"] = ts
        losses: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, v in self._numbers().items():
            attr = F.FIELD_KEYS.get(key)
            jv: Any = v if math.isfinite(v) else str(v)  # JSON has no NaN/Infinity
            if attr is not None:
                out[attr] = int(v) if attr in _COUNT_FIELDS and v.is_integer() else jv
            elif key.endswith("loss"):
                losses[key] = jv
            else:
                extra[key] = jv
        if losses:
            out["losses"] = losses
        if extra:
            out["extra"] = extra
        for name in ("step_time_s", "model_tflops_per_gpu", "rank"):
            v = getattr(self, name)
            if v is not None:
                out[name] = v
        if self.marks:
            out["marks"] = list(self.marks)
        return out

    def __repr__(self) -> str:
        return f"Iteration({self.iteration}, line {self.line_no})"


class IterationList:
    """The iteration lines in iteration order (a sequence of Iteration views) plus numpy columns."""

    def __init__(self, table: IterationTable | None = None):
        self._t = table or IterationTable()
        if table is None:
            self._t.finish()
        self._order: np.ndarray = self._t.order if self._t.order is not None else np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return len(self._order)

    def __bool__(self) -> bool:
        return len(self._order) > 0

    def __iter__(self) -> Iterator[Iteration]:
        t = self._t
        for r in self._order.tolist():
            yield Iteration(t, r)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [Iteration(self._t, r) for r in self._order[i].tolist()]
        return Iteration(self._t, int(self._order[i]))

    def __eq__(self, other: object) -> bool:
        return list(self) == other if isinstance(other, list) else NotImplemented

    @property
    def table(self) -> IterationTable:
        return self._t

    def column(self, key: str) -> np.ndarray:
        """``key``'s values in iteration order (NaN where not printed)."""
        return self._t.raw_column(key)[self._order]

    def attr(self, attr: str) -> np.ndarray:
        return self.column(_ATTR_TO_KEY[attr])

    def numbers(self, name: str) -> np.ndarray:
        """iteration / line_no / step_time_s / model_tflops_per_gpu in iteration order."""
        src = {"iteration": self._t.it, "line_no": self._t.line_no, "step_time_s": self._t.step_s,
               "model_tflops_per_gpu": self._t.mtf}[name]
        dtype = np.float64 if name in ("step_time_s", "model_tflops_per_gpu") else np.int64
        arr = np.frombuffer(src, dtype=dtype) if len(src) else np.zeros(0, dtype=dtype)
        return arr[self._order]

    def loss_keys(self) -> list[str]:
        return [k for k in self._t.keys() if k.endswith("loss") and k not in F.FIELD_KEYS]

    def marked(self, mark: str) -> np.ndarray:
        """Boolean mask (iteration order) of rows carrying ``mark``."""
        rows = np.zeros(self._t.n, dtype=bool)
        for r, ms in self._t.marks.items():
            if mark in ms:
                rows[r] = True
        return rows[self._order]


def _datetime(text: str) -> np.datetime64:
    try:
        return np.datetime64(text, "us")
    except ValueError:
        return np.datetime64("NaT", "us")
