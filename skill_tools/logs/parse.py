"""Streaming parse of a pasted log -> ParsedLog.

One pass, line by line: per-iteration lines (``iteration_feed.py``), memory reports, timer blocks,
CUDA-graph events, capture evidence, tracebacks and stack dumps (``structure.py``) and failure
signatures (``diagnose.py``). Every other line is read after its launcher/logger prefixes are
removed (``prefix.py``), so ``0: [rank0]:``, ``(EngineCore pid=1) ERROR … [core.py:1]`` or a pytest
``E`` do not hide a traceback. Only the parsed records are kept, never the lines themselves, so a
log of any length parses in constant memory per iteration. What kind of text it was is decided at
the end (``log_kind.py``).
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from skill_tools.errors import InputError
from skill_tools.logs import formats as F
from skill_tools.logs import log_kind, nonlog
from skill_tools.logs.checks import CheckContext, resolve_deferred, run_check
from skill_tools.logs.diagnose import Diagnoser, Failure, signature
from skill_tools.logs.events import GATE, GraphEvent, parse_event
from skill_tools.logs.evidence import EvidenceCollector, classify
from skill_tools.logs.fastpath import SchemaPatterns
from skill_tools.logs.iteration_feed import IterationFeed
from skill_tools.logs.iterations import Iteration, IterationList
from skill_tools.logs.lineparts import MemoryReport, continues, parse_memory
from skill_tools.logs.prefix import strip as strip_prefix
from skill_tools.logs.quoting import LineShapes
from skill_tools.logs.rates import GATES as RATE_GATES
from skill_tools.logs.rates import RateLog
from skill_tools.logs.reader import LogFile, clean_lines, split_rank
from skill_tools.logs.runinfo import RunInfo
from skill_tools.logs.stall import CaptureProgress
from skill_tools.logs.structure import StructureReader
from skill_tools.logs.table import IterationTable

__all__ = ["Iteration", "IterationList", "ParsedLog", "MARK_CAPTURE", "MARK_CHECKPOINT", "MARK_EVAL",
           "parse_batches", "parse_lines", "parse_path"]

_MAX_EVENTS = 5000  # capture progress lines can repeat per graph; keep the record bounded
_STACK_VOTE_LINES = 5000  # stack markers are printed at startup; later lines are not scanned for them

# Marks attached to the next iteration line: what happened in its logging interval.
MARK_CAPTURE = "capture"
MARK_CHECKPOINT = "checkpoint"
MARK_EVAL = "eval"
_CHECKPOINT_NEEDLE = "saving checkpoint at iteration"  # training/checkpointing.py save_checkpoint
_EVAL_NEEDLE = "validation loss at"  # training.py evaluate_and_print_results
#: Markdown bold (exactly two asterisks each side; Slurm's "*** STEP ... ***" is not bold).
_MD_BOLD = re.compile(r"(?<!\*)\*\*(?!\*)[^*\n]+?(?<!\*)\*\*(?!\*)")
#: A line a logger wrote at an error level without a bracketed prefix ("ERROR:name:", "ERROR text: ...").
_ERROR_WORDS = ("ERROR:", "ERROR ", "CRITICAL:", "CRITICAL ", "FATAL:", "FATAL ")


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
    logged_lines: int = 0  # lines that carried a log prefix (time, level, rank, process tag)
    text_lines: int = 0  # non-blank lines read one by one (not iteration blocks)
    structure: StructureReader = field(default_factory=StructureReader, repr=False)
    evidence: EvidenceCollector = field(default_factory=EvidenceCollector, repr=False)
    runinfo: RunInfo = field(default_factory=RunInfo, repr=False)
    stack: dict[str, Any] = field(default_factory=dict)
    rates: RateLog = field(default_factory=RateLog, repr=False)  # other stacks' per-step/batch rates
    shapes: LineShapes = field(default_factory=LineShapes, repr=False)  # prose vs output (quoting.py)

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


class _Parser(IterationFeed):
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
        self.progress = CaptureProgress()
        self.deferred: list[tuple[Any, int, str, int | None]] = []  # (signature, line, evidence, rank)
        self.error_line: tuple[int, str, int | None] | None = None  # first line logged at an error level

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
        if any(g in text for g in RATE_GATES):
            self.log.rates.observe(text)
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
        pre, body = strip_prefix(text)
        if pre.rank is not None:
            rank = pre.rank
        log = self.log
        if body.strip():
            log.text_lines += 1
            log.shapes.feed(line_no, body)
            if pre.logged:
                log.logged_lines += 1
            if self.error_line is None and (pre.error or body.startswith(_ERROR_WORDS)):
                self.error_line = (line_no, raw, rank)
        if GATE in text:  # MCore's own messages start with "> ": read them as printed
            ev = parse_event(line_no, text, rank)
            if ev is not None:
                self._event(ev)
        kind = classify(body)
        if kind is not None:
            log.evidence.add(line_no, kind, body, rank)
        self.progress.feed(line_no, body, kind)
        if text[:2] == "  " or "world size" in text or "in billions" in text:
            kv = log.runinfo.feed(text)
            if kv is not None:
                log.evidence.config(kv[0], kv[1], line_no)
        self._markers(text)
        st = log.structure
        st.feed(line_no, rank, body, pre.source)
        self.n_other += 1
        self.last_text, self.last_line_no = text, line_no
        if pre.stack is not None:
            st.votes.vote(pre.stack, text)
        if self.n_other <= _STACK_VOTE_LINES:
            st.vote_line(text)
        if "**" not in body or not _MD_BOLD.search(body):  # prose around a paste, not a printed line
            self._diagnose(line_no, rank, body, raw)

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
            self.diag.report(sig, line_no, raw, rank, consequence=sig.is_consequence(text))
        else:
            run_check(sig, CheckContext(self, line_no, raw, rank))

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
        stall = self.progress.stalled()
        if stall is not None and not any(e.line_no > stall[0] for e in log.structure.exceptions):
            self.diag.report(signature("capture-stalled"), stall[0], stall[1])  # an error after it explains it
        log_kind.structural_evidence(log)
        resolve_deferred(self, log)
        log.failures = self.diag.failures
        if self.error_line is not None and not log.structure.exceptions and not any(
                f.severity == "error" for f in log.failures):
            self.diag.report(signature("error-logged"), *self.error_line)  # an error no signature explains
            log.failures = self.diag.failures
        log_kind.detect_format(self)
        log.stack = log.structure.stack(log_kind.stack_votes(self))
        return log


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
    """Parse a log file (plain or gzip). Raises InputError when it is unreadable or not a log (blank, a
    config, a notebook, source code); other text with nothing recognisable is read as plain text."""
    lf = LogFile(path)
    parsed = parse_batches(lf.batches(), source=str(path), warnings=lf.warnings)
    weak = parsed.format in ("framework-log", "generic-log") and not (parsed.failures or parsed.exceptions)
    # a file named as a document (config, notebook, source) is checked even when lines in it matched:
    # a catalog or a test quoting error messages is still not a log
    if not parsed.recognized or weak or str(path).endswith(nonlog.DOCUMENT_SUFFIXES):
        head = _head(LogFile(path).lines(), nonlog.HEAD_CHARS)
        reason = nonlog.identify(head, str(path))
        if reason is not None:
            raise InputError(str(path), reason, hint=f"pass a log; formats read: {F.SUPPORTED}")
        if weak or parsed.recognized:
            return parsed
        parsed.format = "plain-text"
        parsed.format_reason = (f"{parsed.lines} lines of text with no training, log-prefixed, traceback or "
                                "CUDA-graph line: nothing to read")
    return parsed


def _head(lines: Iterable[str], limit: int) -> str:
    """The first ``limit`` characters of ``lines`` (read lazily)."""
    parts, n = [], 0
    for line in lines:
        parts.append(line)
        n += len(line)
        if n >= limit:
            break
    return "".join(parts)[:limit]


def diagnose_lines(lines: Iterable[str]) -> list[Failure]:
    """Diagnose raw log lines (e.g. a subprocess's captured stdout+stderr) -> Failures.

    Runs the full streaming parse so that derived checks (NaN after capture, hang after training
    finished) agree with ``skill-tools logs``. Never raises for odd text: unknown lines are ignored.
    """
    return parse_lines(lines, source="<lines>").failures
