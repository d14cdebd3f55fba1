"""Structural reading of what people paste: Python tracebacks, stack dumps, and which stack wrote it.

A pasted log is rarely a clean training log. It is a traceback copied from a terminal, the
``[rankN]:`` lines of one failing rank among seven healthy ones, a vLLM ``(EngineCore pid=…) ERROR
… [core.py:1111]`` block, a ``py-spy dump`` of a hung process, or the last screen before a Slurm
time limit. This module reads those shapes line by line (one streaming pass, bounded state):

- tracebacks anywhere: plain, rank-prefixed, launcher-prefixed, interleaved between ranks (one
  open traceback per rank/source), chained (``During handling of the above exception``), cut
  before the exception line (the search result or the user stopped copying), or started
  mid-way (first line a ``File "…"`` frame);
- C++ ``terminate called after throwing an instance of 'c10::…'`` + ``what():``;
- stack dumps: py-spy (``Thread 123 (idle): "MainThread"`` + ``func (file.py:12)``), Python
  faulthandler (``Current thread 0x… (most recent call first):``), gdb (``#3 0x… in …``);
- the stack that produced the text (Megatron-LM / Bridge / NeMo / TE / PyTorch / vLLM / SGLang),
  from frame paths and logger formats, with the evidence that decided it.

Nothing here knows about CUDA graphs' causes; ``verdict.py`` combines this with the signatures.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MAX_FRAMES = 40  # frames kept per traceback (the innermost ones matter)
MAX_EXCEPTIONS = 200
MAX_DUMPS = 50
MESSAGE_MAX = 400

# --- prefixes added by launchers and serving frameworks -----------------------------------------
# vLLM v1: "(EngineCore_DP0 pid=387) ERROR 03-08 16:44:32 [core.py:1111] ", Ray actors:
# "(RayWorkerWrapper pid=6774) INFO 12-24 21:49:17 model_runner.py:1400] ", mpirun:
# "[1,17]<stdout>:", a pid column before torchrun's prefix: "[80746] [rank0]:".
_SOURCE_PREFIX = re.compile(
    r"(?:\x1b?\[\d+m)?\((?P<src>[A-Za-z_][\w.-]*) pid=\d+\)\s?"
    r"(?:(?:ERROR|WARNING|INFO|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w./-]+:\d+\] ?)?"
    r"|\[\d+,(?P<mpi>\d+)\]<std(?:out|err)>:"
    r"|\[\d+\] (?=\[rank\d+\]:)"
)
_RANK_AFTER = re.compile(r"\[rank(\d+)\]:[ ]?")
_LOGGER_PREFIX = re.compile(  # "[2025-07-08 07:10:20 TP0] " (SGLang), "[NeMo E 2026-... file:12] "
    r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?(?: (?:TP|DP|PP|EP)\d+(?: \w+\d+)*)?\] "
)


def strip_source(text: str) -> tuple[str | None, int | None, str]:
    """(source tag, rank, rest) after removing serving/launcher prefixes; cheap when there is none."""
    if not text:
        return None, None, text
    c = text[0]
    if c not in "([\x1b":
        return None, None, text
    m = _SOURCE_PREFIX.match(text)
    if m is None:
        return None, None, text
    src = m.group("src")
    rank = int(m.group("mpi")) if m.group("mpi") else None
    rest = text[m.end():]
    m2 = _RANK_AFTER.match(rest)
    if m2:
        rank, rest = int(m2.group(1)), rest[m2.end():]
    return src, rank, rest


# --- tracebacks ------------------------------------------------------------------------------------
TB_HEAD = "Traceback (most recent call last)"
_FRAME = re.compile(r'File "(?P<file>[^"]*)", line (?P<line>\d+),? in (?P<func>\S.*?)\s*$|File "(?P<file2>[^"]*)", line (?P<line2>\d+)')
# An exception line: a (dotted) class name ending in Error/Exception/... at column 0, then ": msg".
_EXC = re.compile(
    r"(?P<type>(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)"
    r"|AssertionError|KeyboardInterrupt|StopIteration|Exception))(?::\s?(?P<msg>.*))?$"
)
_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")
_CXX_TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']+)'")

# --- stack dumps -----------------------------------------------------------------------------------
_PYSPY_THREAD = re.compile(r'Thread (?:0x[0-9A-Fa-f]+|\d+) \((?P<state>[\w+]+)\): "(?P<name>[^"]*)"')
_PYSPY_FRAME = re.compile(r"\s+(?P<func>\S+) \((?P<file>[^():]+(?::[^():]+)?):(?P<line>\d+)\)\s*$")
_FAULT_HEAD = re.compile(r"(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):")
_FAULT_FRAME = re.compile(r'\s+File "(?P<file>[^"]*)", line (?P<line>\d+) in (?P<func>\S+)')
_GDB_FRAME = re.compile(r"#\d+\s+0x[0-9a-f]+ in (?P<func>\S+)")

# Frames that belong to CUDA-graph machinery (file path or function name).
GRAPH_FILES = (
    "cuda_graphs.py", "full_cuda_graph.py", "optimizer_cuda_graph.py", "transformer_engine/pytorch/graph.py",
    "torch/cuda/graphs.py", "cudagraph_utils.py", "cuda_graph_runner.py", "cudagraph_trees.py",
    "cuda_graph", "cudagraph",
)
CAPTURE_FUNCS = (
    "capture", "make_graphed_callables", "create_cudagraphs", "init_cuda_graphs", "_full_graph_compile",
    "capture_model", "_capture_cudagraphs", "_warmup_and_capture", "capture_end", "capture_begin",
    "create_cuda_graphs", "_capture",
)
REPLAY_FUNCS = ("replay",)

# --- stacks ----------------------------------------------------------------------------------------
STACKS = ("megatron-bridge", "nemo", "megatron-lm", "sglang", "vllm", "transformer-engine", "pytorch")
STACK_NAMES = {
    "megatron-bridge": "Megatron Bridge", "nemo": "NeMo", "megatron-lm": "Megatron-LM / Megatron-Core",
    "sglang": "SGLang", "vllm": "vLLM", "transformer-engine": "Transformer Engine (without Megatron)",
    "pytorch": "PyTorch (no Megatron, TE or serving framework seen)", "unknown": "unknown",
}
_PATH_TAGS = (  # (substring of a frame path, stack)
    ("megatron/bridge/", "megatron-bridge"), ("/nemo/", "nemo"), ("megatron/core/", "megatron-lm"),
    ("megatron/training/", "megatron-lm"), ("megatron/legacy/", "megatron-lm"), ("/sglang/", "sglang"),
    ("/vllm/", "vllm"), ("transformer_engine/", "transformer-engine"), ("/torch/", "pytorch"),
    ("torch/", "pytorch"),
)
_LINE_TAGS = (  # (substring of a non-frame line, stack)
    ("megatron.bridge", "megatron-bridge"), ("[NeMo ", "nemo"), ("nemo_logging", "nemo"),
    ("megatron.core", "megatron-lm"), ("validation loss at iteration", "megatron-lm"), ("megatron.training", "megatron-lm"), ("INFO:megatron", "megatron-lm"),
    ("sglang", "sglang"), ("Capturing batches (bs=", "sglang"), ("vllm", "vllm"), ("vLLM", "vllm"),
    ("(EngineCore", "vllm"), ("Engine 000:", "vllm"), ("Capturing CUDA graph shapes", "vllm"),
    ("Capturing cudagraphs for decoding", "vllm"), ("transformer_engine", "transformer-engine"),
    ("TransformerEngine", "transformer-engine"), ("ProcessGroupNCCL", "pytorch"), ("torch.", "pytorch"),
    ("NCCL INFO", "pytorch"),
)
_SITE_PKG = re.compile(r"(?:site|dist)-packages/([A-Za-z_]\w*)/")
MEGATRON_STACKS = frozenset({"megatron-lm", "megatron-bridge"})


@dataclass
class Frame:
    file: str
    line: int
    func: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "func": self.func}

    def __str__(self) -> str:
        return f"{self.file}:{self.line} in {self.func}"


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
            if any(f.func == c or f.func.startswith(c) for c in CAPTURE_FUNCS):
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


def is_graph_frame(f: Frame) -> bool:
    path = f.file.replace("\\", "/")
    return any(g in path for g in GRAPH_FILES) or f.func in ("make_graphed_callables", "_make_graphed_callables")


class StructureReader:
    """Streaming reader: ``feed`` every non-iteration line, then read the results."""

    def __init__(self) -> None:
        self.exceptions: list[ExceptionRecord] = []
        self.dumps: list[StackDump] = []
        self._open: dict[tuple[Any, ...], ExceptionRecord] = {}
        self._last_closed: dict[tuple[Any, ...], ExceptionRecord] = {}
        self._chain_pending: set[tuple[Any, ...]] = set()
        self._expect_code: set[tuple[Any, ...]] = set()
        self._dump: StackDump | None = None
        self._cxx: tuple[int, int | None, str] | None = None
        self.stack_votes: dict[str, int] = {}
        self.stack_evidence: dict[str, str] = {}
        self.other_packages: dict[str, int] = {}
        self.dropped = 0

    # -- stack evidence ---------------------------------------------------------------------------
    def vote(self, stack: str, evidence: str, weight: int = 1) -> None:
        self.stack_votes[stack] = self.stack_votes.get(stack, 0) + weight
        self.stack_evidence.setdefault(stack, evidence.strip()[:200])

    def _vote_path(self, path: str, evidence: str) -> None:
        p = path.replace("\\", "/")
        for needle, stack in _PATH_TAGS:
            if needle in p:
                self.vote(stack, evidence, 3)
                return
        m = _SITE_PKG.search(p)
        if m:
            self.other_packages[m.group(1)] = self.other_packages.get(m.group(1), 0) + 1

    def vote_line(self, text: str) -> None:
        for needle, stack in _LINE_TAGS:
            if needle in text:
                self.vote(stack, text)
                return

    # -- per line ---------------------------------------------------------------------------------
    def feed(self, line_no: int, rank: int | None, text: str) -> None:
        src, r2, text = strip_source(text)
        if r2 is not None:
            rank = r2
        if src is not None and src.startswith(("EngineCore", "Worker", "RayWorkerWrapper", "VllmWorker")):
            self.vote("vllm", text)
        key = (rank, src)
        s = text.lstrip()
        if not s:
            return
        indent = len(text) - len(s)
        if self._dump is not None and self._dump_line(line_no, s, text, indent):
            return
        if self._cxx is not None:
            self._cxx_what(line_no, s)
        head = s[:1]
        if "Traceback (most recent" in s:
            self._start(line_no, rank, key, src)
            return
        if head == "F" and s.startswith('File "'):
            m = _FRAME.search(s)
            if m:
                self._frame(line_no, rank, key, src, m)
                self._expect_code.add(key)
                return
        tb = self._open.get(key)
        if tb is not None and key in self._expect_code:  # the code line under a frame (any indent)
            self._expect_code.discard(key)
            if indent == 0 and _EXC.match(s) is None:
                tb.end_line = line_no
                return
        self._expect_code.discard(key)
        if head in "DT" and s.startswith(_CHAIN):
            self._chain_pending.add(key)
            return
        if indent == 0 or tb is None:
            m = _EXC.match(s) if head.isalpha() else None
            if m is not None:
                self._exception(line_no, rank, key, src, m)
                return
        if tb is not None:
            if indent > 0 or s.startswith(("^", "~", "...")):
                tb.end_line = line_no  # code line, caret line, or elision inside the traceback
                return
            self._close(key)  # something else: the traceback was cut here
        self._other(line_no, rank, s)

    def _other(self, line_no: int, rank: int | None, s: str) -> None:
        c = s[0]
        if c == "T" and s.startswith("Thread ") and _PYSPY_THREAD.match(s):
            self._new_dump(StackDump(line_no, "py-spy", rank, threads=1))
        elif c in "CT" and _FAULT_HEAD.match(s):
            self._new_dump(StackDump(line_no, "faulthandler", rank, threads=1))
        elif c == "#" and _GDB_FRAME.match(s):
            self._new_dump(StackDump(line_no, "gdb", rank, threads=1))
            self._dump_line(line_no, s, s, 0)
        elif c == "t" and s.startswith("terminate called after throwing"):
            m = _CXX_TERMINATE.search(s)
            if m:
                self._cxx = (line_no, rank, m.group("type"))

    def _new_dump(self, d: StackDump) -> None:
        self._dump = d
        if len(self.dumps) < MAX_DUMPS:
            self.dumps.append(d)

    def _cxx_what(self, line_no: int, s: str) -> None:
        start, rank, typ = self._cxx  # type: ignore[misc]
        self._cxx = None
        msg = s[len("what():"):].strip() if s.startswith("what():") else ""
        rec = ExceptionRecord(line_no=start, end_line=line_no, rank=rank, type=typ, message=msg[:MESSAGE_MAX],
                              exc_line_no=start)
        self._add(rec)

    def _dump_line(self, line_no: int, s: str, text: str, indent: int) -> bool:
        d = self._dump
        assert d is not None
        if d.kind == "py-spy":
            if s.startswith("Thread ") and _PYSPY_THREAD.match(s):
                d.threads += 1
                return True
            m = _PYSPY_FRAME.match(text) if indent else None
            if m:
                d.n_frames += 1
                d.frames.append(Frame(m.group("file"), int(m.group("line")), m.group("func")))
                self._vote_path("/" + m.group("file"), text)
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
                self._vote_path(m.group("file"), text)
                return True
        else:
            m = _GDB_FRAME.match(s)
            if m:
                d.n_frames += 1
                d.frames.append(Frame("", 0, m.group("func")))
                return True
            if indent or s.startswith(("--Type", "(gdb)", "Thread ")):
                return True
        self._dump = None
        return False

    def _start(self, line_no: int, rank: int | None, key: tuple[Any, ...], src: str | None) -> None:
        self._close(key)
        chained = key in self._chain_pending
        self._chain_pending.discard(key)
        self._open[key] = ExceptionRecord(line_no=line_no, end_line=line_no, rank=rank, chained=chained, source=src)

    def _frame(self, line_no: int, rank: int | None, key: tuple[Any, ...], src: str | None, m: Any) -> None:
        tb = self._open.get(key)
        if tb is None:  # the paste starts (or a rank's part resumes) inside a traceback
            tb = ExceptionRecord(line_no=line_no, end_line=line_no, rank=rank, partial_start=True, source=src,
                                 chained=key in self._chain_pending)
            self._chain_pending.discard(key)
            self._open[key] = tb
        f = Frame(m.group("file") or m.group("file2") or "", int(m.group("line") or m.group("line2") or 0),
                  (m.group("func") or "?").strip())
        tb.frames.append(f)
        tb.n_frames += 1
        tb.end_line = line_no
        self._vote_path(f.file, f.file)

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
        self._last_closed[key] = tb

    def _close(self, key: tuple[Any, ...]) -> None:
        tb = self._open.pop(key, None)
        if tb is not None and tb.n_frames:
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

    # -- results ----------------------------------------------------------------------------------
    def stack(self, extra_votes: dict[str, int] | None = None) -> dict[str, Any]:
        votes = dict(self.stack_votes)
        for k, v in (extra_votes or {}).items():
            votes[k] = votes.get(k, 0) + v
        name = next((s for s in STACKS if votes.get(s)), "unknown")
        megatron = name in MEGATRON_STACKS or (name == "nemo" and bool(votes.get("megatron-lm")))
        other = sorted(self.other_packages, key=lambda k: -self.other_packages[k])
        other = [p for p in other if p not in ("torch", "megatron", "transformer_engine", "vllm", "sglang", "nemo")]
        return {
            "name": name,
            "description": STACK_NAMES[name],
            "megatron": megatron,
            "evidence": {k: self.stack_evidence[k] for k in STACKS if k in self.stack_evidence},
            "other_packages": other[:5],
        }
