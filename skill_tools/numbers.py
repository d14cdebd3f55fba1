"""Numbers as the reports print them: one formatter for a value and one for a value with its CI.

Each report keeps its own mark for a missing value (``—`` in Markdown tables, ``-`` in plain
text), passed as ``missing``.
"""

from __future__ import annotations

from typing import Any


def as_number(x: Any) -> float | None:
    """``x`` as a float when it is a number (an int or float, not a bool), else None: a config or
    results value that is a string where a number belongs is its own check's finding, not a number."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def fmt(x: float | None, digits: int = 2, *, missing: str = "—") -> str:
    """``x`` with ``digits`` decimals, or ``missing``."""
    return missing if x is None else f"{x:.{digits}f}"


def fmt_ci(point: float | None, low: float | None, high: float | None, *, digits: int = 2, unit: str = "",
           prefix: str = "", missing: str = "—") -> str:
    """``point[unit] [low, high]``; the point alone when the interval is unknown; ``missing`` without a point."""
    if point is None:
        return missing
    head = f"{prefix}{point:.{digits}f}{unit}"
    return head if low is None or high is None else f"{head} [{low:.{digits}f}, {high:.{digits}f}]"
