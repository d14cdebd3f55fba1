"""Streaming parse of a Megatron-LM / Megatron Bridge training log -> ParsedLog.

One pass, line by line: per-iteration lines, memory reports, timer blocks, CUDA-graph events and
failure signatures. Only the parsed records are kept, never the lines themselves, so a log of
any length parses in constant memory per iteration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from skill_tools.errors import InputError
from skill_tools.logs import formats as F
from skill_tools.logs.diagnose import Diagnoser, Failure, signature
from skill_tools.logs.events import GATE, GraphEvent, parse_event
from skill_tools.logs.reader import LogFile, clean_lines

_MAX_EVENTS = 5000  # capture progress lines can repeat per graph; keep the record bounded

# Marks attached to the next iteration line: what happened in its logging interval.
MARK_CAPTURE = "capture"
MARK_CHECKPOINT = "checkpoint"
MARK_EVAL = "eval"
_CHECKPOINT_NEEDLE = "saving checkpoint at iteration"  # training/checkpointing.py save_checkpoint
_EVAL_NEEDLE = "validation loss at"  # training.py evaluate_and_print_results


_COUNT_FIELDS = frozenset(
    {"consumed_samples", "skipped_samples", "global_batch_size", "skipped_iterations", "nan_iterations"}
)


class Iteration:
    """One per-iteration log line (an average over the logging interval that ends here)."""

    __slots__ = (
        "iteration", "train_iters", "line_no", "timestamp", "elapsed_ms", "consumed_samples",
        "skipped_samples", "tflops_per_gpu", "learning_rate", "global_batch_size", "losses",
        "loss_scale", "grad_norm", "num_zeros", "params_norm", "skipped_iterations",
        "nan_iterations", "extra", "marks", "step_time_s", "model_tflops_per_gpu", "rank",
    )

    def __init__(self, iteration: int, train_iters: int, line_no: int):
        self.iteration = iteration
        self.train_iters = train_iters
        self.line_no = line_no
        self.timestamp: str | None = None
        self.elapsed_ms: float | None = None
        self.consumed_samples: float | None = None
        self.skipped_samples: float | None = None
        self.tflops_per_gpu: float | None = None
        self.learning_rate: float | None = None
        self.global_batch_size: float | None = None
        self.losses: dict[str, float] = {}
        self.loss_scale: float | None = None
        self.grad_norm: float | None = None
        self.num_zeros: float | None = None
        self.params_norm: float | None = None
        self.skipped_iterations: float | None = None
        self.nan_iterations: float | None = None
        self.extra: dict[str, float] = {}
        self.marks: tuple[str, ...] = ()
        self.step_time_s: float | None = None
        self.model_tflops_per_gpu: float | None = None
        self.rank: int | None = None

    def has_nan(self) -> bool:
        if self.nan_iterations:
            return True
        for v in (self.grad_norm, *self.losses.values()):
            if v is not None and not math.isfinite(v):
                return True
        return False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__slots__:
            v = getattr(self, name)
            if v is None or v == {} or v == ():
                continue
            if isinstance(v, float) and not math.isfinite(v):
                v = str(v)  # JSON has no NaN/Infinity
            elif name in _COUNT_FIELDS and isinstance(v, float) and v.is_integer():
                v = int(v)
            elif isinstance(v, dict):
                v = {k: (x if math.isfinite(x) else str(x)) for k, x in v.items()}
            elif isinstance(v, tuple):
                v = list(v)
            out[name] = v
        return out


@dataclass
class MemoryReport:
    """One ``[Rank N] (...) memory (MB|GB) | ...`` line, converted to MiB."""

    line_no: int
    rank: int
    when: str
    after_iteration: int | None
    allocated_mib: float | None
    max_allocated_mib: float | None
    reserved_mib: float | None
    max_reserved_mib: float | None
    unit: str


@dataclass
class ParsedLog:
    source: str
    format: str = "unknown"
    format_reason: str = ""
    lines: int = 0
    iterations: list[Iteration] = field(default_factory=list)
    memory: list[MemoryReport] = field(default_factory=list)
    timers: dict[str, list[float]] = field(default_factory=dict)
    events: list[GraphEvent] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    first_line: str = ""
    training_done: bool = False

    @property
    def recognized(self) -> bool:
        return self.format != "unknown"

    def capture_events(self, scope: str = "training") -> list[GraphEvent]:
        return [
            e for e in self.events
            if e.kind in ("capture_start", "capture_end") and e.scope == scope
        ]


def _parse_memory(line_no: int, text: str) -> list[MemoryReport]:
    """All memory reports on a line (two ranks' reports can be glued onto one line)."""
    return [_memory_report(line_no, m) for m in F.MEMORY.finditer(text)]


def _memory_report(line_no: int, m: Any) -> MemoryReport:
    values: dict[str, float] = {}
    for piece in m.group("rest").split("|"):
        key, sep, val = piece.strip().rpartition(": ")
        if sep:
            num = F.to_float(val.strip())
            if num is not None:
                values[key] = num
    unit = m.group("unit")
    if unit == "GB":  # Bridge: bytes / 1e9, renamed keys
        values = {
            F.BRIDGE_MEMORY_KEYS[k]: v * 1e9 / F.MIB for k, v in values.items() if k in F.BRIDGE_MEMORY_KEYS
        }
    when = m.group("when")
    it = F.MEMORY_AFTER_ITER.search(when)
    return MemoryReport(
        line_no=line_no,
        rank=int(m.group("rank")),
        when=when,
        after_iteration=int(it.group(1)) if it else None,
        allocated_mib=values.get("allocated"),
        max_allocated_mib=values.get("max allocated"),
        reserved_mib=values.get("reserved"),
        max_reserved_mib=values.get("max reserved"),
        unit=unit,
    )


_KEYS = F.FIELD_KEYS
_KEY_OK = F.FIELD_KEY.match


def _parse_fields(it: Iteration, rest: str) -> str:
    """Fill ``it`` from the `` key: value |`` fields; returns text that is not a field (glued junk)."""
    junk = ""
    for piece in rest.split("|"):
        key, sep, val = piece.rpartition(": ")
        if not sep:
            if piece.strip():
                junk += piece
            continue
        key = key.strip()
        val = val.strip()
        try:
            num = float(val)
        except ValueError:
            junk += piece
            continue
        attr = _KEYS.get(key)
        if attr is not None:
            setattr(it, attr, num)
        elif not _KEY_OK(key):
            junk += piece
        elif key.endswith("loss"):
            it.losses[key] = num
        else:
            it.extra[key] = num
    return junk


class _Parser:
    """State of one streaming parse."""

    def __init__(self, source: str):
        self.log = ParsedLog(source=source)
        self.diag = Diagnoser()
        self.iters: dict[int, Iteration] = {}
        self.marks: set[str] = set()
        self.timer_block = False
        self.capture_seen_line: int | None = None
        self.ranks: set[int] = set()
        self.n_ts_us = self.n_ts_plain = self.n_no_ts = 0
        self.bridge_markers = 0
        self.megatron_markers = 0
        self.pending_step: tuple[float, float] | None = None
        self.restarts = 0
        self.n_progress = 0

    # -- per line ---------------------------------------------------------------------------------
    def feed(self, line_no: int, rank: int | None, text: str, raw: str) -> None:
        if rank is not None and rank not in self.ranks:
            self.ranks.add(rank)
        if not self.log.first_line and text.strip():
            self.log.first_line = text.strip()[:200]

        if self.timer_block:
            if self._timer_line(text):
                return
            self.timer_block = False

        if F.ITERATION_NEEDLE in text and " |" in text:
            m = F.ITERATION_HEAD.search(text)
            if m is not None:
                self._iteration(line_no, rank, text, raw, m)
                return
        if F.MEMORY_NEEDLE in text:
            reps = _parse_memory(line_no, text)
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
        self._markers(text)
        self._diagnose(line_no, rank, text, raw)

    def _markers(self, text: str) -> None:
        if _CHECKPOINT_NEEDLE in text:
            self.marks.add(MARK_CHECKPOINT)
        elif _EVAL_NEEDLE in text:
            self.marks.add(MARK_EVAL)
        elif F.TRAINING_DONE in text:
            self.log.training_done = True
        for mk in F.BRIDGE_MARKERS:
            if mk in text:
                self.bridge_markers += 1
                break
        else:
            for mk in F.MEGATRON_MARKERS:
                if mk in text:
                    self.megatron_markers += 1
                    break

    def _diagnose(self, line_no: int, rank: int | None, text: str, raw: str) -> None:
        """Match ``text``; quote ``raw`` (the line as printed, rank prefix included) as evidence."""
        sig = self.diag.match(text)
        if sig is None:
            return
        if sig.check is None:
            self.diag.report(sig, line_no, raw, rank)
        elif sig.check == "nan_after_capture":
            self._nan(line_no, raw, rank)
        elif sig.check == "after_training_done":
            if self.log.training_done:
                self.diag.report(sig, line_no, raw, rank)

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

    def _iteration(self, line_no: int, rank: int | None, text: str, raw: str, m) -> None:
        it = Iteration(int(m.group("it")), int(m.group("total")), line_no)
        it.rank = rank
        ts = m.group("ts")
        if ts is None:
            self.n_no_ts += 1
        else:
            it.timestamp = ts
            if m.group("us"):
                self.n_ts_us += 1
            else:
                self.n_ts_plain += 1
        junk = _parse_fields(it, text[m.end():])
        head = text[: m.start()]
        if self.pending_step is not None:
            it.step_time_s, it.model_tflops_per_gpu = self.pending_step
            self.pending_step = None
        if self.marks:
            it.marks = tuple(sorted(self.marks))
            self.marks = set()
        prev = self.iters.pop(it.iteration, None)
        if prev is not None and prev.elapsed_ms != it.elapsed_ms:
            self.restarts += 1
        self.iters[it.iteration] = it
        if it.has_nan():
            self._nan(line_no, raw, rank)
        # Other ranks' text glued before/after the fields can still carry an error.
        for glued in (head, junk):
            if len(glued.strip()) > 3:
                self._diagnose(line_no, rank, glued, raw)

    # -- end ----------------------------------------------------------------------------------------
    def finish(self, lines: int, warnings: list[str]) -> ParsedLog:
        log = self.log
        log.lines = lines
        log.iterations = sorted(self.iters.values(), key=lambda i: i.iteration)
        log.failures = self.diag.failures
        log.ranks = sorted(self.ranks)
        log.warnings = list(warnings)
        if self.restarts:
            log.warnings.append(
                f"{self.restarts} iteration number(s) logged twice with different values "
                "(restart from a checkpoint?); the later line was kept"
            )
        if self.n_progress > 50:
            log.warnings.append(f"{self.n_progress} graph-capture progress lines; kept the first 50")
        self._detect_format()
        return log

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
        elif log.events or log.failures or log.memory or log.timers or self.megatron_markers or self.bridge_markers:
            log.format = "mcore-events"
            log.format_reason = "no per-iteration lines; recognised MCore/Megatron lines (graph events, errors, memory or timers)"


def parse_lines(lines: Iterable[str], source: str = "<lines>", warnings: list[str] | None = None) -> ParsedLog:
    """Parse raw log lines (with or without trailing newlines). Never raises for odd content."""
    p = _Parser(source)
    feed = p.feed
    last = 0
    for ll in clean_lines(lines):
        feed(ll.line_no, ll.rank, ll.text, ll.raw)
        last = ll.line_no
    return p.finish(last, warnings or [])


def parse_path(path: str | Path) -> ParsedLog:
    """Parse a log file (plain or gzip). Raises InputError when unreadable or not a Megatron log."""
    lf = LogFile(path)
    parsed = parse_lines(lf.lines(), source=str(path), warnings=lf.warnings)
    if not parsed.recognized:
        seen = parsed.first_line or "(only blank lines)"
        raise InputError(
            str(path),
            f"no Megatron training-log lines found in {parsed.lines} lines; first line seen: {seen!r}",
            hint=f"supported formats: {F.SUPPORTED}",
        )
    return parsed
