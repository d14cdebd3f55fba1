"""A capture that stops making progress: the last progress bar of a capture (vLLM ``Capturing CUDA
graph shapes: 0%| 0/35``, SGLang ``Capturing batches (bs=512 …): 0%| 0/52``) below 100%, followed by
other output and no completion line, is a capture that hung or died with its error hidden.

A text that simply ends on the progress bar says nothing (the paste was cut); other lines after it
do - the program went on printing while the capture did not advance.
"""

from __future__ import annotations

import re

from skill_tools.logs.evidence import classify

_TIMING = re.compile(r"^\s*\[[^\]]*\]")
_BAR = re.compile(r"(?P<label>Captur[\w ]*?(?:\([^)]*\))?)[^|\n]{0,40}?:\s+\d{1,3}%\|[^|]*\|\s*(?P<k>\d+)/(?P<n>\d+)")
#: Lines that belong to the capture itself and so are not "other output".
_CAPTURE_KINDS = frozenset({"capture-started", "captured", "mentioned"})
#: Custom all-reduce registers the buffers of the graphs captured: none registered, none captured.
_EMPTY = "Registering 0 cuda graph addresses"


class CaptureProgress:
    """Tracks the last capture progress bar and whether other output followed it."""

    def __init__(self) -> None:
        self.last: tuple[int, str, int, int] | None = None  # (line, text, k, n) of the last unfinished bar
        self.after = 0  # non-capture lines printed after it

    def feed(self, line_no: int, text: str, kind: str | None) -> None:
        if "%|" in text and "aptur" in text:
            bars = list(_BAR.finditer(text))
            if bars:
                m = bars[-1]
                k, n = int(m.group("k")), int(m.group("n"))
                self.last = None if k >= n else (line_no, text.strip()[:300], k, n)
                rest = _TIMING.sub("", text[m.end():]).strip()
                self.after = int(self.last is not None and bool(rest) and classify(rest) not in _CAPTURE_KINDS)
                return
        if self.last is None:
            return
        if kind == "captured":
            self.last = None
        elif (kind not in _CAPTURE_KINDS and text.strip()) or _EMPTY in text:
            self.after += 1

    def stalled(self) -> tuple[int, str] | None:
        """(line, evidence) of a stalled capture, or None."""
        if self.last is None or not self.after:
            return None
        line_no, text, k, n = self.last
        return line_no, f"{text} [capture progress stopped at {k}/{n}; {self.after} other line(s) followed]"
