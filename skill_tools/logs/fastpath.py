"""Runs of plain iteration lines read a block at a time, without per-line Python work.

A run logged with ``--log-interval 1`` is mostly iteration lines: a million of them for a long job.
Read one by one (find the head, split the fields, store a row) each costs tens of microseconds in
Python. Here a block of lines (one piece of the file, ~1 MB) is matched by one regular expression
per *schema* (the key sequence of the iteration lines seen so far): ``re.findall`` returns one
tuple per line, in C, with the timestamp, iteration, total and every value for an iteration line and
empty strings for any other line. Values are converted per column (``np.fromiter(map(float, ...))``).
Lines that are not plain iteration lines of that schema (other log lines, a new field, a rank
prefix, a wrapped or glued line) go through the line-by-line parser in their place, so the order of
events and iteration lines is kept.

The pattern accepts only what the line-by-line parser would read to the same row: no rank prefix,
only blanks and the ``[timestamp]`` before ``iteration``, `` key: value |`` fields with exactly the
schema's keys (one space after each bar, as ``split_fields`` wants) and nothing after the last bar.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np

from skill_tools.logs import formats as F

MAX_PATTERNS = 16
# training_log's last field (megatron/training/training.py core_v0.19.0 l.2897): a schema ending
# elsewhere may be the first piece of a terminal-wrapped line, which the line parser joins.
LAST_KEY = "number of nan iterations"  # distinct schemas compiled; a log rarely has more than two or three

# " [2026-07-28 10:15:32.731983] iteration       10/  500000 |" (core_v0.16+), seconds-only
# (<= 0.15, Bridge), or no timestamp (2023 and earlier).
# Launcher prefixes as reader.py's _RANK_PREFIX reads them: torchrun "[rank3]: ", Slurm `srun -l` "3: ".
_PREFIX = r"(?:\[(?:rank|default)(\d+)\]:[ ]?|[ ]{0,3}(\d{1,5}): )?"
_HEAD = (r"^" + _PREFIX + r" *(?:\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?)\] +)?"
         r"iteration +(\d{1,18})/ *(\d{1,18}) \|")
IT_GROUP = 3  # index of the iteration number in a findall tuple: empty for any other line


def schema_pattern(keys: Sequence[str]) -> re.Pattern[str]:
    """One alternative for an iteration line with exactly ``keys``, one for any other line: findall
    then yields one tuple per line of the block (empty strings for the other lines)."""
    fields = r"\|".join(" " + re.escape(k) + r": +([^ |\r\x1b]+) *" for k in keys)
    return re.compile(_HEAD + fields + r"\|[ \t]*$|^.*$", re.M)


def floats(values: Sequence[str]) -> np.ndarray:
    """Printed numbers -> float64 (NaN where a value is not a number, like the line parser)."""
    try:
        return np.fromiter(map(float, values), np.float64, len(values))
    except ValueError:
        return np.array([_num(v) for v in values], dtype=np.float64)


def _column(col: tuple[str, ...], n: int, conv, dtype) -> np.ndarray:
    """One column; a value printed the same on every row (global batch size, loss scale, the
    iteration total, skip counters) is converted once."""
    if col[0] == col[-1] and col.count(col[0]) == n:
        one = conv(col[0]) if conv is not None else _num(col[0])
        return np.full(n, one, dtype=dtype)
    return np.fromiter(map(conv, col), dtype, n) if conv is not None else floats(col)


def _num(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


class Block:
    """The iteration rows of one run of consecutive matched lines, as columns."""

    __slots__ = ("rank", "ts", "ts_len", "it", "total", "values")

    def __init__(self, rows: Sequence[tuple[str, ...]]):
        cols = list(zip(*rows))
        n = len(rows)
        torchrun, srun = cols[0], cols[1]
        if torchrun[0] == torchrun[-1] == "" == srun[0] == srun[-1] and not any(torchrun) and not any(srun):
            self.rank = np.full(n, -1, dtype=np.int32)
        else:
            self.rank = np.fromiter((int(a) if a else (int(b) if b else -1) for a, b in zip(torchrun, srun)),
                                    np.int32, n)
        self.ts: tuple[str, ...] = cols[2]
        self.ts_len = np.fromiter(map(len, self.ts), np.int8, n)
        self.it = np.fromiter(map(int, cols[3]), np.int64, n)
        self.total = _column(cols[4], n, int, np.int64)
        self.values = np.empty((n, len(cols) - 5), dtype=np.float64)
        for j, col in enumerate(cols[5:]):
            self.values[:, j] = _column(col, n, None, np.float64)

    def nan_rows(self, keys: Sequence[str]) -> np.ndarray:
        """Row indexes whose printed fields show a NaN/Inf loss or grad norm, or a non-zero
        ``number of nan iterations`` (the same test as the line parser's)."""
        bad = np.zeros(len(self.it), dtype=bool)
        for j, k in enumerate(keys):
            col = self.values[:, j]
            if k == "number of nan iterations":
                bad |= col != 0  # NaN counts too, as in the line parser
            elif k == "grad norm" or (k.endswith("loss") and k not in F.FIELD_KEYS):
                bad |= ~np.isfinite(col)
        return np.flatnonzero(bad)


class SchemaPatterns:
    """Compiled patterns by key sequence (bounded)."""

    def __init__(self) -> None:
        self._by_keys: dict[tuple[str, ...], re.Pattern[str] | None] = {}

    def get(self, keys: tuple[str, ...] | None) -> re.Pattern[str] | None:
        if not keys or keys[-1] != LAST_KEY:  # a line that may be a wrapped piece: line by line
            return None
        rx = self._by_keys.get(keys, False)
        if rx is False:
            rx = schema_pattern(keys) if len(self._by_keys) < MAX_PATTERNS else None
            self._by_keys[keys] = rx
        return rx  # type: ignore[return-value]
