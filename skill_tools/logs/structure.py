"""Structural reading of what people paste: Python tracebacks and stack dumps, per rank.

A pasted log is rarely a clean training log. It is a traceback copied from a terminal, the
``[rankN]:`` lines of one failing rank among seven healthy ones, a vLLM ``(EngineCore pid=…) ERROR
… [core.py:1111]`` block, a ``py-spy dump`` of a hung process, or the last screen before a Slurm
time limit. The caller removes line prefixes first (``prefix.py``); this module reads the shapes
that remain, line by line (one streaming pass, bounded state):

- tracebacks anywhere: interleaved between ranks (one open traceback per rank/source), chained
  (``During handling of the above exception``), cut before the exception line (the search result or
  the user stopped copying), or started mid-way (first line a ``File "…"`` frame), pytest listings
  (``path.py:12: in func``);
- C++ ``terminate called after throwing an instance of 'c10::…'`` + ``what():``;
- stack dumps (``dumps.py``);
- votes for the stack that produced the text (``stacks.py``).

Nothing here knows about CUDA graphs' causes; ``verdict.py`` combines this with the signatures.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from skill_tools.logs.dumps import StackDump, dump_line, dump_start
from skill_tools.logs.frames import MAX_FRAMES, REPLAY_FUNCS, Frame, is_capture_func, is_graph_frame
from skill_tools.logs.stacks import StackVotes

MAX_EXCEPTIONS = 200
MAX_DUMPS = 50
MESSAGE_MAX = 400

_FRAME = re.compile(r'File "(?P<file>[^"]*)", line (?P<line>\d+),? in (?P<func>\S.*?)\s*$|File "(?P<file2>[^"]*)", line (?P<line2>\d+)')
# pytest's long traceback: "path/to/file.py:120: in decorate_context"
_PYTEST_FRAME = re.compile(r"(?P<file>[^\s:]+\.py):(?P<line>\d+): in (?P<func>\S+)\s*$")
# An exception line: a (dotted) class name ending in Error/Exception/... at column 0, then ": msg".
_EXC = re.compile(
    r"(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)"
    r"|AssertionError|KeyboardInterrupt|StopIteration|Exception))(?::\s?(?P<msg>.*))?$"
)
_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")
_CALL = re.compile(r"(?:\.|\b)(\w+)\(")
#: PyTorch lines that print the user's stack below a message (inductor's cudagraph skip reasons).
_ANNOTATION_END = ("Found from :", "Found from:")
_CXX_TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']+)'")


@dataclass
class ExceptionRecord:
    """One traceback (or bare exception line). ``type`` is None when the text ends before it."""

    line_no: int  # where the traceback (or exception line) starts
    end_line: int
    rank: int | None
    type: str | None = None
    message: str = ""
    exc_line_no: int | None = None
    frames: deque = field(default_factory=lambda: deque(maxlen=MAX_FRAMES))
    n_frames: int = 0
    partial_start: bool = False  # the text starts mid-traceback (no "Traceback" header seen)
    chained: bool = False  # raised while handling a previous exception of the same rank
    source: str | None = None
    last_code: str = ""  # the source line under the innermost frame (the call in progress)

    @property
    def complete(self) -> bool:
        return self.type is not None

    @property
    def graph_frames(self) -> list[Frame]:
        return [f for f in self.frames if is_graph_frame(f)]

    @property
    def phase(self) -> str | None:
        """'capture' / 'replay' when the innermost graph frame says which, else None."""
        for f in reversed(self.frames):
            if f.func in REPLAY_FUNCS or f.func.startswith("replay"):
                if is_graph_frame(f) or "graphs.py" in f.file:
                    return "replay"
            if is_capture_func(f.func):
                return "capture"
        call = _CALL.search(self.last_code)
        if call is not None and is_capture_func(call.group(1)):  # the innermost frame was calling capture
            return "capture"
        return "graph code" if self.graph_frames else None

    def headline(self) -> str:
        if self.type is None:
            last = self.frames[-1] if self.frames else None
            return f"traceback cut before its exception line (last frame {last})" if last else "traceback cut"
        msg = f": {self.message}" if self.message else ""
        return f"{self.type}{msg}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "line_no": self.line_no, "end_line": self.end_line, "exception_line": self.exc_line_no,
            "rank": self.rank, "type": self.type, "message": self.message, "complete": self.complete,
            "partial_start": self.partial_start, "chained": self.chained, "frames_seen": self.n_frames,
            "innermost_frames": [f.to_dict() for f in list(self.frames)[-6:]],
            "graph_frames": [str(f) for f in self.graph_frames[-4:]], "phase": self.phase,
        }


class StructureReader:
    """Streaming reader: ``feed`` every non-iteration line (prefixes removed), then read the results."""

    def __init__(self) -> None:
        self.exceptions: list[ExceptionRecord] = []
        self.dumps: list[StackDump] = []
        self.votes = StackVotes()
        self._open: dict[tuple[Any, ...], ExceptionRecord] = {}
        self._chain_pending: set[tuple[Any, ...]] = set()
        self._expect_code: set[tuple[Any, ...]] = set()
        self._dump: StackDump | None = None
        self._cxx: tuple[int, int | None, str] | None = None
        self._annotation: set[tuple[Any, ...]] = set()  # keys whose next frames annotate, not raise
        self.dropped = 0

    @property
    def stack_votes(self) -> dict[str, int]:
        return self.votes.votes

    def vote_line(self, text: str) -> None:
        self.votes.vote_line(text)

    def stack(self, extra_votes: dict[str, int] | None = None) -> dict[str, Any]:
        return self.votes.stack(extra_votes)

    # -- per line ---------------------------------------------------------------------------------
    def feed(self, line_no: int, rank: int | None, text: str, source: str | None = None) -> None:
        key = (rank, source)
        s = text.lstrip()
        if not s:
            return
        indent = len(text) - len(s)
        if self._dump is not None:
            if dump_line(self._dump, s, text, indent, self.votes.vote_path):
                return
            self._dump = None
        if self._cxx is not None:
            self._cxx_what(line_no, s)
        head = s[:1]
        if "Traceback (most recent" in s:
            self._start(line_no, rank, key, source)
            return
        if head == "F" and s.startswith('File "'):
            m = _FRAME.search(s)
            if m and key in self._annotation and key not in self._open:
                return  # a user stack PyTorch prints under a message ("Found from :"), not a traceback
            if m:
                self._frame(line_no, rank, key, source, m.group("file") or m.group("file2") or "",
                            int(m.group("line") or m.group("line2") or 0), (m.group("func") or "?").strip())
                self._expect_code.add(key)
                return
        if ".py:" in s and ": in " in s:
            m = _PYTEST_FRAME.match(s)
            if m:
                self._frame(line_no, rank, key, source, m.group("file"), int(m.group("line")), m.group("func"))
                return
        tb = self._open.get(key)
        if tb is not None and key in self._expect_code:  # the code line under a frame (any indent)
            self._expect_code.discard(key)
            if indent > 0 or _EXC.match(s) is None:
                tb.last_code = s[:200]
            if indent == 0 and _EXC.match(s) is None:
                tb.end_line = line_no
                return
        self._expect_code.discard(key)
        if key in self._annotation and (indent > 0 or s.startswith(_ANNOTATION_END)):
            return
        self._annotation.discard(key)
        if s.endswith(_ANNOTATION_END):
            self._annotation.add(key)
        if head in "DT" and s.startswith(_CHAIN):
            self._chain_pending.add(key)
            return
        if indent == 0 or tb is None:
            m = _EXC.match(s) if head.isalpha() else None
            if m is not None:
                self._exception(line_no, rank, key, source, m)
                return
        if tb is not None:
            if indent > 0 or s.startswith(("^", "~", "...", "_ _")):
                tb.end_line = line_no  # code line, caret line, or elision inside the traceback
                return
            self._close(key)  # something else: the traceback was cut here
        self._other(line_no, rank, s)

    def _other(self, line_no: int, rank: int | None, s: str) -> None:
        d = dump_start(line_no, rank, s)
        if d is not None:
            self._dump = d
            if len(self.dumps) < MAX_DUMPS:
                self.dumps.append(d)
            if d.kind == "gdb":
                dump_line(d, s, s, 0, self.votes.vote_path)
        elif s[0] == "t" and s.startswith("terminate called after throwing"):
            m = _CXX_TERMINATE.search(s)
            if m:
                self._cxx = (line_no, rank, m.group("type"))

    def _cxx_what(self, line_no: int, s: str) -> None:
        start, rank, typ = self._cxx  # type: ignore[misc]
        self._cxx = None
        msg = s[len("what():"):].strip() if s.startswith("what():") else ""
        self._add(ExceptionRecord(line_no=start, end_line=line_no, rank=rank, type=typ, message=msg[:MESSAGE_MAX],
                                  exc_line_no=start))

    def _start(self, line_no: int, rank: int | None, key: tuple[Any, ...], src: str | None) -> None:
        self._close(key)
        chained = key in self._chain_pending
        self._chain_pending.discard(key)
        self._open[key] = ExceptionRecord(line_no=line_no, end_line=line_no, rank=rank, chained=chained, source=src)

    def _frame(self, line_no: int, rank: int | None, key: tuple[Any, ...], src: str | None, file: str, line: int,
               func: str) -> None:
        tb = self._open.get(key)
        if tb is None:  # the paste starts (or a rank's part resumes) inside a traceback
            tb = ExceptionRecord(line_no=line_no, end_line=line_no, rank=rank, partial_start=True, source=src,
                                 chained=key in self._chain_pending)
            self._chain_pending.discard(key)
            self._open[key] = tb
        tb.frames.append(Frame(file, line, func))
        tb.n_frames += 1
        tb.end_line = line_no
        self.votes.vote_path(file, file)

    def _exception(self, line_no: int, rank: int | None, key: tuple[Any, ...], src: str | None, m: Any) -> None:
        tb = self._open.pop(key, None)
        if tb is None:
            tb = ExceptionRecord(line_no=line_no, end_line=line_no, rank=rank, source=src,
                                 chained=key in self._chain_pending)
            self._chain_pending.discard(key)
        tb.type = m.group("type")
        tb.message = (m.group("msg") or "").strip()[:MESSAGE_MAX]
        tb.exc_line_no = tb.end_line = line_no
        self._add(tb)

    def _close(self, key: tuple[Any, ...]) -> None:
        """A traceback that ends without its exception line (cut; even right after its header)."""
        tb = self._open.pop(key, None)
        if tb is not None:
            self._add(tb)

    def _add(self, rec: ExceptionRecord) -> None:
        if len(self.exceptions) < MAX_EXCEPTIONS:
            self.exceptions.append(rec)
        else:
            self.dropped += 1

    def finish(self) -> None:
        for key in list(self._open):
            self._close(key)
        if self._cxx is not None:
            start, rank, typ = self._cxx
            self._add(ExceptionRecord(line_no=start, end_line=start, rank=rank, type=typ, exc_line_no=start))
            self._cxx = None
        self.exceptions.sort(key=lambda e: e.line_no)
