"""Streaming parse of a Megatron-LM / Megatron Bridge training log -> ParsedLog.

One pass, line by line: per-iteration lines, memory reports, timer blocks, CUDA-graph events and
failure signatures. Only the parsed records are kept, never the lines themselves, so a log of
any length parses in constant memory per iteration.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from skill_tools.errors import InputError
from skill_tools.logs import formats as F
from skill_tools.logs.diagnose import Diagnoser, Failure, signature
from skill_tools.logs.events import GATE, GraphEvent, parse_event
from skill_tools.logs.evidence import EvidenceCollector, classify
from skill_tools.logs.fastpath import IT_GROUP, Block, SchemaPatterns
from skill_tools.logs.lineparts import TIMESTAMP, MemoryReport, continues, line_has_nan, may_continue, parse_memory
from skill_tools.logs.reader import LogFile, clean_lines, split_rank
from skill_tools.logs.runinfo import RunInfo
from skill_tools.logs.structure import StructureReader
from skill_tools.logs.table import Iteration, IterationList, IterationTable, split_fields

__all__ = ["Iteration", "IterationList", "ParsedLog", "MARK_CAPTURE", "MARK_CHECKPOINT", "MARK_EVAL",
           "parse_batches", "parse_lines", "parse_path"]

_MIN_BLOCK_ROWS = 16  # shorter runs of iteration lines are read line by line (numpy set-up costs more)
_STEP_LINES = 256  # lines read one by one before looking for an iteration-line schema again
_MAX_EVENTS = 5000  # capture progress lines can repeat per graph; keep the record bounded
_STACK_VOTE_LINES = 5000  # stack markers are printed at startup; later lines are not scanned for them

# Marks attached to the next iteration line: what happened in its logging interval.
MARK_CAPTURE = "capture"
MARK_CHECKPOINT = "checkpoint"
MARK_EVAL = "eval"
_CHECKPOINT_NEEDLE = "saving checkpoint at iteration"  # training/checkpointing.py save_checkpoint
_EVAL_NEEDLE = "validation loss at"  # training.py evaluate_and_print_results




@dataclass
class ParsedLog:
    source: str
    format: str = "unknown"
    format_reason: str = ""
    lines: int = 0
    iterations: IterationList = field(default_factory=IterationList)
    memory: list[MemoryReport] = field(default_factory=list)
    timers: dict[str, list[float]] = field(default_factory=dict)
    events: list[GraphEvent] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    first_line: str = ""
    training_done: bool = False
    structure: StructureReader = field(default_factory=StructureReader, repr=False)
    evidence: EvidenceCollector = field(default_factory=EvidenceCollector, repr=False)
    runinfo: RunInfo = field(default_factory=RunInfo, repr=False)
    stack: dict[str, Any] = field(default_factory=dict)

    @property
    def recognized(self) -> bool:
        return self.format != "unknown"

    @property
    def exceptions(self):
        return self.structure.exceptions

    def capture_events(self, scope: str = "training") -> list[GraphEvent]:
        return [
            e for e in self.events
            if e.kind in ("capture_start", "capture_end") and e.scope == scope
        ]


def _scope(sig_id: str) -> str:
    try:
        return signature(sig_id).scope
    except KeyError:
        return "any"


_split_fields = split_fields  # kept for callers of the old name


class _Parser:
    """State of one streaming parse."""

    def __init__(self, source: str):
        self.log = ParsedLog(source=source)
        self.diag = Diagnoser()
        self.table = IterationTable()
        self.patterns = SchemaPatterns()
        self.marks: set[str] = set()
        self.timer_block = False
        self.capture_seen_line: int | None = None
        self.ranks: set[int] = set()
        self.n_ts_us = self.n_ts_plain = self.n_no_ts = 0
        self.bridge_markers = 0
        self.megatron_markers = 0
        self.pending_step: tuple[float, float] | None = None
        self.n_progress = 0
        self.n_other = 0
        self.pending: tuple[int, int | None, str, str] | None = None
        self.last_text = ""
        self.last_line_no = 0
        self.need_first_line = True

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

    def feed_raw(self, line_no: int, raw: str) -> None:
        """One physical line as read (newline removed)."""
        if "\x1b" in raw or "\r" in raw:  # slow path: colours, tqdm redraws
            for ll in clean_lines((raw,), start=line_no):
                self.feed(ll.line_no, ll.rank, ll.text, ll.raw)
            return
        c = raw[:1]
        if (c == "[" or c == " " or c.isdigit()) and raw[:2] != " [":  # " [ts] iteration": no rank
            rank, text = split_rank(raw)
            self.feed(line_no, rank, text, raw)
        else:
            self.feed(line_no, None, raw, raw)

    # -- per line ---------------------------------------------------------------------------------
    def feed(self, line_no: int, rank: int | None, text: str, raw: str) -> None:
        if rank is not None and rank not in self.ranks:
            self.ranks.add(rank)
        if self.need_first_line and text.strip():
            self.log.first_line = text.strip()[:200]
            self.need_first_line = False

        if self.timer_block:
            if self._timer_line(text):
                return
            self.timer_block = False

        if self.pending is not None:
            pl, prank, ptext, praw = self.pending
            self.pending = None
            # A terminal wrapped the iteration line: the next physical line continues it (a pasted
            # `srun -l` line carries its prefix on the first piece only).
            if (rank == prank or rank is None) and continues(ptext, text):
                if self._try_iteration(pl, prank, ptext + text, praw + raw, final=False):
                    return
            else:
                self._try_iteration(pl, prank, ptext, praw, final=True)
        if self._try_iteration(line_no, rank, text, raw, final=False):
            return
        if F.MEMORY_NEEDLE in text:
            reps = parse_memory(line_no, text)
            if reps:
                self.log.memory.extend(reps)
                return
        if "across ranks (ms):" in text and F.TIMER_HEADER.search(text):
            self.timer_block = True
            self.megatron_markers += 1
            return
        if "MODEL_TFLOP/s/GPU" in text:
            m = F.BRIDGE_STEP_TIME.search(text)
            if m:
                self.pending_step = (float(m.group("s")), float(m.group("tf")))
                self.bridge_markers += 1
                return
        if GATE in text:
            ev = parse_event(line_no, text, rank)
            if ev is not None:
                self._event(ev)
        kind = classify(text)
        if kind is not None:
            self.log.evidence.add(line_no, kind, text, rank)
        if text[:2] == "  " or "world size" in text or "in billions" in text:
            kv = self.log.runinfo.feed(text)
            if kv is not None:
                self.log.evidence.config(kv[0], kv[1], line_no)
        self._markers(text)
        st = self.log.structure
        st.feed(line_no, rank, text)
        self.n_other += 1
        self.last_text, self.last_line_no = text, line_no
        if self.n_other <= _STACK_VOTE_LINES:
            st.vote_line(text)
        self._diagnose(line_no, rank, text, raw)

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

    def _markers(self, text: str) -> None:
        if _CHECKPOINT_NEEDLE in text:
            self.marks.add(MARK_CHECKPOINT)
        elif _EVAL_NEEDLE in text:
            self.marks.add(MARK_EVAL)
        elif F.TRAINING_DONE in text:
            self.log.training_done = True
        if not self.bridge_markers:  # presence is all that format detection needs
            for mk in F.BRIDGE_MARKERS:
                if mk in text:
                    self.bridge_markers += 1
                    return
        if not self.megatron_markers:
            for mk in F.MEGATRON_MARKERS:
                if mk in text:
                    self.megatron_markers += 1
                    return

    def _diagnose(self, line_no: int, rank: int | None, text: str, raw: str) -> None:
        """Match ``text``; quote ``raw`` (the line as printed, rank prefix included) as evidence."""
        sig = self.diag.match(text)
        if sig is None:
            return
        if self.n_other > _STACK_VOTE_LINES:
            self.log.structure.vote_line(text)
        if sig.check is None:
            self.diag.report(sig, line_no, raw, rank)
        elif sig.check == "nan_after_capture":
            self._nan(line_no, raw, rank)
        elif sig.check == "after_training_done":
            if self.log.training_done:
                self.diag.report(sig, line_no, raw, rank)
            else:  # the same scheduler line before training finished: a hang or a slow run
                self.diag.report(signature("job-time-limit"), line_no, raw, rank)

    def _nan(self, line_no: int, text: str, rank: int | None) -> None:
        sig_id = "nan-after-capture" if self.capture_seen_line is not None else "nan-or-inf"
        self.diag.report(signature(sig_id), line_no, text, rank)

    def _timer_line(self, text: str) -> bool:
        m = F.TIMER_MINMAX.match(text) or F.TIMER_MAX.match(text)
        if m is None:
            return False
        self.log.timers.setdefault(m.group("name").strip(), []).append(float(m.group("max")))
        return True

    def _event(self, ev: GraphEvent) -> None:
        if ev.kind == "capture_progress":
            self.n_progress += 1
            if self.n_progress > 50:
                return
        if ev.kind in ("capture_start", "capture_end") and ev.scope in ("training", None) and ev.impl != "optimizer":
            self.marks.add(MARK_CAPTURE)
            if self.capture_seen_line is None:
                self.capture_seen_line = ev.line_no
        if len(self.log.events) < _MAX_EVENTS:
            self.log.events.append(ev)

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

    # -- end ----------------------------------------------------------------------------------------
    def finish(self, lines: int, warnings: list[str]) -> ParsedLog:
        if self.pending is not None:
            pl, prank, ptext, praw = self.pending
            self.pending = None
            self._try_iteration(pl, prank, ptext, praw, final=True)
        log = self.log
        log.lines = lines
        self.table.finish()
        log.iterations = IterationList(self.table)
        log.failures = self.diag.failures
        log.ranks = sorted(self.ranks)
        log.warnings = list(warnings)
        if self.table.restarts:
            log.warnings.append(
                f"{self.table.restarts} iteration number(s) logged twice with different values "
                "(restart from a checkpoint?); the later line was kept"
            )
        if self.n_progress > 50:
            log.warnings.append(f"{self.n_progress} graph-capture progress lines; kept the first 50")
        log.structure.finish()
        if self.last_text and "Destroy COMPLETE" in self.last_text and not log.training_done:
            self.diag.report(signature("log-ends-in-teardown"), self.last_line_no, self.last_text)
            log.failures = self.diag.failures
        self._structural_evidence()
        self._detect_format()
        log.stack = log.structure.stack(self._stack_votes())
        return log

    def _stack_votes(self) -> dict[str, int]:
        """Megatron's own line formats vote for its stack (Bridge when its markers are there)."""
        log = self.log
        own = len(log.iterations) + len(log.memory) + len(log.timers) + len(log.events) + self.megatron_markers
        # A Megatron-only message (config asserts, TECudaGraphHelper, ...) is evidence of the stack too.
        own += sum(2 for f in log.failures if _scope(f.id) == "megatron")
        if self.bridge_markers or any(r.unit == "GB" for r in log.memory):
            return {"megatron-bridge": 5 + own}
        return {"megatron-lm": own} if own else {}

    def _structural_evidence(self) -> None:
        """Tracebacks through graph code and stack dumps in graph replay are capture evidence too."""
        log = self.log
        for exc in log.structure.exceptions:
            phase = exc.phase
            if phase is None:
                continue
            # failing inside capture / replay is direct evidence; elsewhere in graph code (manager
            # set-up, config asserts) it shows graphs were in use
            kind = {"capture": "capture-failed", "replay": "replayed"}.get(phase, "configured")
            frames = exc.graph_frames or list(exc.frames)
            log.evidence.add(exc.exc_line_no or exc.line_no, kind,
                             f"{exc.headline()} [in {phase}: {frames[-1] if frames else '?'}]", exc.rank)
        for d in log.structure.dumps:
            if d.graph_frames:
                log.evidence.add(d.line_no, "replayed", f"{d.kind} stack dump in graph code: {d.graph_frames[0]}",
                                 d.rank)
        for ev in log.events:
            if ev.kind == "capture_end":
                log.evidence.add(ev.line_no, "captured", ev.text, ev.rank)
            elif ev.kind == "capture_start":
                log.evidence.add(ev.line_no, "capture-started", ev.text, ev.rank)

    def _detect_format(self) -> None:
        log = self.log
        n = len(log.iterations)
        bridge = self.bridge_markers > 0 or any(r.unit == "GB" for r in log.memory)
        if n:
            if self.n_ts_us and not bridge:
                log.format = "megatron-lm"
                log.format_reason = f"{self.n_ts_us} iteration lines with microsecond timestamps (core_v0.16+)"
            elif bridge:
                log.format = "megatron-bridge"
                log.format_reason = (
                    f"{n} iteration lines plus Bridge markers (Step Time / memory (GB) / "
                    "Starting training loop / Deleting CUDA graphs)"
                )
            elif self.n_ts_plain:
                log.format = "megatron-lm-0.15-or-bridge"
                log.format_reason = (
                    f"{self.n_ts_plain} iteration lines with second-resolution timestamps and no Bridge "
                    "markers (Megatron-LM <= core_v0.15, or Bridge with its Step Time line filtered out)"
                )
            else:
                log.format = "megatron-lm-legacy"
                log.format_reason = f"{self.n_no_ts} iteration lines without timestamps"
        elif log.events or log.memory or log.timers or self.megatron_markers or self.bridge_markers:
            log.format = "mcore-events"
            log.format_reason = "no per-iteration lines; recognised MCore/Megatron lines (graph events, errors, memory or timers)"
        elif log.structure.exceptions or log.structure.dumps:
            n, d = len(log.structure.exceptions), len(log.structure.dumps)
            log.format = "traceback"
            log.format_reason = f"no per-iteration lines; {n} traceback(s)/exception line(s), {d} stack dump(s)"
        elif log.failures or log.evidence.items or log.structure.stack_votes:
            log.format = "framework-log"
            log.format_reason = ("no per-iteration lines; recognised error, CUDA-graph or framework lines "
                                 "(" + ", ".join(sorted(log.structure.stack_votes) or ["error lines"]) + ")")


_BATCH_LINES = 4096  # lines per block when parse_lines is given single lines


def parse_lines(lines: Iterable[str], source: str = "<lines>", warnings: list[str] | None = None) -> ParsedLog:
    """Parse raw log lines (with or without trailing newlines). Never raises for odd content."""
    def batches() -> Iterable[list[str]]:
        batch: list[str] = []
        for raw in lines:
            batch.append(raw[:-1] if raw[-1:] == "\n" else raw)
            if len(batch) >= _BATCH_LINES:
                yield batch
                batch = []
        if batch:
            yield batch

    return parse_batches(batches(), source=source, warnings=warnings)


def parse_batches(batches: Iterable[list[str]], source: str = "<lines>",
                  warnings: list[str] | None = None) -> ParsedLog:
    """Parse lists of raw lines (newline removed), block by block. Never raises for odd content."""
    p = _Parser(source)
    last = 0
    # Millions of small records: the cyclic GC would rescan them over and over for nothing.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for batch in batches:
            p.feed_batch(last, batch)
            last += len(batch)
    finally:
        if gc_was_enabled:
            gc.enable()
    return p.finish(last, warnings or [])


def parse_path(path: str | Path) -> ParsedLog:
    """Parse a log file (plain or gzip). Raises InputError when unreadable or when nothing in it is
    recognisable (no training line, traceback, stack dump, error or framework line)."""
    lf = LogFile(path)
    parsed = parse_batches(lf.batches(), source=str(path), warnings=lf.warnings)
    if not parsed.recognized:
        seen = parsed.first_line or "(only blank lines)"
        raise InputError(
            str(path),
            f"no Megatron training-log lines, tracebacks, stack dumps or framework lines found in "
            f"{parsed.lines} lines; first line seen: {seen!r}",
            hint=f"supported formats: {F.SUPPORTED}",
        )
    return parsed
