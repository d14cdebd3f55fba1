"""Stack dumps in a pasted text: py-spy, Python faulthandler and gdb. A dump means someone inspected a
live (usually stuck) process, so its innermost frames say where it hung.

- py-spy: ``Thread 123 (idle): "MainThread"`` then indented ``func (file.py:12)``;
- faulthandler: ``Current thread 0x… (most recent call first):`` then ``  File "…", line N in f``;
- gdb: ``#3 0x… in func (…)`` lines (``thread apply all bt``).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from skill_tools.logs.frames import MAX_FRAMES, REPLAY_FUNCS, Frame, is_graph_frame

_PYSPY_THREAD = re.compile(r'Thread (?:0x[0-9A-Fa-f]+|\d+) \((?P<state>[\w+]+)\): "(?P<name>[^"]*)"')
_PYSPY_FRAME = re.compile(r"\s+(?P<func>\S+) \((?P<file>[^():]+(?::[^():]+)?):(?P<line>\d+)\)\s*$")
_FAULT_HEAD = re.compile(r"(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):")
_FAULT_FRAME = re.compile(r'\s+File "(?P<file>[^"]*)", line (?P<line>\d+) in (?P<func>\S+)')
_GDB_FRAME = re.compile(r"#\d+\s+0x[0-9a-f]+ in (?P<func>\S+)")


@dataclass
class StackDump:
    """A py-spy / faulthandler / gdb dump: evidence that a live process was inspected (a hang)."""

    line_no: int
    kind: str  # py-spy | faulthandler | gdb
    rank: int | None = None
    threads: int = 0
    frames: deque = field(default_factory=lambda: deque(maxlen=MAX_FRAMES))
    n_frames: int = 0

    @property
    def graph_frames(self) -> list[Frame]:
        return [f for f in self.frames if is_graph_frame(f) or f.func in REPLAY_FUNCS]

    def to_dict(self) -> dict[str, Any]:
        return {"line_no": self.line_no, "kind": self.kind, "rank": self.rank, "threads": self.threads,
                "frames_seen": self.n_frames, "top_frames": [str(f) for f in list(self.frames)[:6]],
                "graph_frames": [str(f) for f in self.graph_frames[:4]]}


def dump_start(line_no: int, rank: int | None, s: str) -> StackDump | None:
    """A new dump when ``s`` (a line without its indent) is a dump's first line."""
    c = s[0]
    if c == "T" and s.startswith("Thread ") and _PYSPY_THREAD.match(s):
        return StackDump(line_no, "py-spy", rank, threads=1)
    if c in "CT" and _FAULT_HEAD.match(s):
        return StackDump(line_no, "faulthandler", rank, threads=1)
    if c == "#" and _GDB_FRAME.match(s):
        return StackDump(line_no, "gdb", rank, threads=1)
    return None


def dump_line(d: StackDump, s: str, text: str, indent: int, vote_path: Callable[[str, str], None]) -> bool:
    """Read one more line into ``d``; False when the line ends the dump."""
    if d.kind == "py-spy":
        if s.startswith("Thread ") and _PYSPY_THREAD.match(s):
            d.threads += 1
            return True
        m = _PYSPY_FRAME.match(text) if indent else None
        if m:
            d.n_frames += 1
            d.frames.append(Frame(m.group("file"), int(m.group("line")), m.group("func")))
            vote_path("/" + m.group("file"), text)
            return True
        if indent and " (" in s and not s.endswith(")"):  # frame cut mid-line
            d.frames.append(Frame(s[s.find(" (") + 2:], 0, s.split(" ", 1)[0]))
            d.n_frames += 1
            return True
    elif d.kind == "faulthandler":
        if _FAULT_HEAD.match(s):
            d.threads += 1
            return True
        m = _FAULT_FRAME.match(text)
        if m:
            d.n_frames += 1
            d.frames.append(Frame(m.group("file"), int(m.group("line")), m.group("func")))
            vote_path(m.group("file"), text)
            return True
    else:
        m = _GDB_FRAME.match(s)
        if m:
            d.n_frames += 1
            d.frames.append(Frame("", 0, m.group("func")))
            return True
        if indent or s.startswith(("--Type", "(gdb)", "Thread ")):
            return True
    return False
