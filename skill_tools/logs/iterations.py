"""The sequence API over an ``IterationTable``: ``IterationList`` (``len``, indexing, slicing,
iteration, numpy columns for statistics) and the light ``Iteration`` view it makes on demand, so
a million-line log never holds a million objects.
"""

from __future__ import annotations

import math
from typing import Any, Iterator

import numpy as np

from skill_tools.logs import formats as F
from skill_tools.logs.table import ATTR_TO_KEY, COUNT_FIELDS, IterationTable


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
        key = ATTR_TO_KEY.get(attr)
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
                out[attr] = int(v) if attr in COUNT_FIELDS and v.is_integer() else jv
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
        # Lines already in iteration order (the usual case): columns are views, not copies.
        n = len(self._order)
        self._identity = n == self._t.n and (n == 0 or (self._order[0] == 0 and self._order[-1] == n - 1))

    def _ordered(self, arr: np.ndarray) -> np.ndarray:
        if not self._identity:
            return arr[self._order]
        view = arr.view()
        view.flags.writeable = False  # shares memory with the table's cache
        return view

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
        return self._ordered(self._t.raw_column(key))

    def attr(self, attr: str) -> np.ndarray:
        return self.column(ATTR_TO_KEY[attr])

    def numbers(self, name: str) -> np.ndarray:
        """iteration / line_no / step_time_s / model_tflops_per_gpu in iteration order."""
        src = {"iteration": self._t.it, "line_no": self._t.line_no, "step_time_s": self._t.step_s,
               "model_tflops_per_gpu": self._t.mtf}[name]
        dtype = np.float64 if name in ("step_time_s", "model_tflops_per_gpu") else np.int64
        arr = np.frombuffer(src, dtype=dtype) if len(src) else np.zeros(0, dtype=dtype)
        return self._ordered(arr)

    def loss_keys(self) -> list[str]:
        return [k for k in self._t.keys() if k.endswith("loss") and k not in F.FIELD_KEYS]

    def marked(self, mark: str) -> np.ndarray:
        """Boolean mask (iteration order) of rows carrying ``mark``."""
        rows = np.zeros(self._t.n, dtype=bool)
        for r, ms in self._t.marks.items():
            if mark in ms:
                rows[r] = True
        return self._ordered(rows)
