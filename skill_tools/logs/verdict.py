"""The verdict on one log: stack, findings, capture status, hang / NaN status — one consistent story.

Inputs are the parse's raw material (signature matches, tracebacks, stack dumps, capture
evidence); the output is what a user reads:

- **stack**: which software wrote the text. Outside Megatron (vLLM, SGLang, NeMo ASR, TE or
  PyTorch alone) findings keep only their stack-neutral cause and fix, and say that the fix
  catalogue is Megatron's.
- **findings**: signature matches, refined by the frames of the traceback they sit in (the same
  CUDA error raised in ``_broadcast_cu_seqlens`` or in the MoE dispatcher has a known, specific
  fix); every exception no signature explains (``uncaught-exception``); tracebacks cut before
  their exception line; stack dumps (a process was stuck).
- **capture**: the strongest claim the graph-related lines support, ``unknown`` when none does.
- **hang** and **nan**: ``yes`` / ``no`` / ``unknown``, never a guess presented as a fact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skill_tools.logs.diagnose import Failure, load_catalog, make_failure, signature
from skill_tools.logs.evidence import SUMMARY
from skill_tools.logs.frames import package_of
from skill_tools.logs.parse import ParsedLog
from skill_tools.logs.quoting import hedge, quoted_capture
from skill_tools.logs.structure import ExceptionRecord

CATALOGUE_NOTE = (
    "this is a {stack} log: the fix catalogue is Megatron's, so only the stack-neutral cause and fix are shown"
)
UNKNOWN_STACK_NOTE = (
    "no Megatron line or frame in this text (stack not recognised): the fix catalogue is Megatron's, so only "
    "the stack-neutral cause and fix are shown"
)
# A log that stops mid-run says nothing about why; a hang is one possibility (no scheduler line needed).
STOPPED_NOTE = (
    "the text stops at iteration {it} of {total} with no error, no 'after training is done' line and no "
    "scheduler message: the run was still going, was killed, hung, or the paste was cut - hang: unknown "
    "(if the job is still there, dump every rank's stack with py-spy)"
)
_COVER_AFTER = 8  # lines after an exception line that still belong to it ("Search for `cudaError...'")
_CHAIN_LINES = 200  # how far back an error can be the cause of a "previous error during capture" line
_GENERIC_IDS = frozenset({"uncaught-exception", "incomplete-traceback", "hang-stack-dump", "worker-failed",
                          "error-logged"})
_HANG_IDS = frozenset({"nccl-watchdog-timeout", "teardown-hang", "job-time-limit", "hang-stack-dump",
                       "serving-decode-stalled", "serving-watchdog-timeout"})


@dataclass
class Verdict:
    stack: dict[str, Any]
    failures: list[Failure]
    capture_status: str
    capture_summary: str
    hang: str = "unknown"
    nan: str = "no"
    notes: list[str] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    dumps: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "capture_status": self.capture_status,
            "capture_summary": self.capture_summary,
            "hang": self.hang,
            "nan": self.nan,
            "finding_ids": [f.id for f in self.failures],
            "notes": self.notes,
            "exceptions": self.exceptions,
            "stack_dumps": self.dumps,
        }


def _refinements() -> list[tuple[Any, tuple[str, ...], tuple[str, ...]]]:
    """(signature, frame needles, parent ids) for catalog entries refined by traceback frames."""
    out = []
    for sig in load_catalog():
        if sig.frames:
            out.append((sig, sig.frames, sig.refines))
    return out


def _frame_hit(exc: ExceptionRecord, needles: tuple[str, ...]) -> str | None:
    for f in exc.frames:
        text = f"{f.file}:{f.line} in {f.func}"
        if any(n in text for n in needles):
            return text
    return None


def _covers(f: Failure, exc: ExceptionRecord) -> bool:
    if f.line_no is None:
        return False
    end = (exc.exc_line_no or exc.end_line) + _COVER_AFTER
    return exc.line_no - 2 <= f.line_no <= end and (not f.ranks or exc.rank is None or exc.rank in f.ranks)


def build(log: ParsedLog) -> Verdict:
    failures = [_copy(f) for f in log.failures]
    excs = log.structure.exceptions
    # 1. Frame refinements: the same error text, raised in a known place, has a specific cause.
    for sig, needles, parents in _refinements():
        for exc in excs:
            hit = _frame_hit(exc, needles)
            if hit is None:
                continue
            covered = [f for f in failures if f.id in parents and _covers(f, exc)]
            msg_ok = any(n in exc.message for n in sig.message)
            # "uncaught-exception" as a parent: an exception no finding explains, raised through graph code;
            # "incomplete-traceback": a traceback cut before its message, read from its frames
            unexplained = not any(_covers(f, exc) for f in failures if f.severity == "error")
            bare = unexplained and (("uncaught-exception" in parents and exc.complete and exc.phase is not None)
                                    or ("incomplete-traceback" in parents and not exc.complete))
            if not (covered or msg_ok or bare):
                continue
            failures = [f for f in failures if f not in covered]
            ev = f"{exc.headline()} [raised in {hit}]"
            failures.append(make_failure(sig, exc.exc_line_no or exc.line_no, ev, exc.rank))
            break
    # 2. A consequence ("operation failed due to a previous error during capture") is folded into the
    #    earlier error that caused it: the first failure of the chain is the cause.
    failures, folded = _fold_consequences(failures)
    # 3. Exceptions that no finding explains.
    errors = [f for f in failures if f.severity == "error"]
    # An exception followed by one raised while handling it ("During handling of the above
    # exception ...") was handled: what propagated, and what to report, is the last of the chain -
    # unless the text cuts that one before its exception line; then the earlier one is all there is.
    handled = {id(e) for e, nxt in zip(excs, excs[1:]) if nxt.chained and nxt.rank == e.rank and nxt.complete}
    uncaught = [e for e in excs if e.complete and id(e) not in handled and not any(_covers(f, e) for f in errors)]
    cut = [e for e in excs if not e.complete and not any(_covers(f, e) for f in failures)]
    if uncaught:
        first = uncaught[0]
        f = make_failure(signature("uncaught-exception"), first.exc_line_no or first.line_no, _exc_evidence(first),
                         first.rank)
        f.count = len(uncaught)
        f.cause = _uncaught_cause(first) + " " + f.cause
        failures.append(f)
    if cut and not any(f.severity == "error" for f in failures):
        first = cut[0]
        f = make_failure(signature("incomplete-traceback"), first.line_no, _exc_evidence(first), first.rank)
        f.count = len(cut)
        failures.append(f)
    # 4. Stack dumps: someone inspected a live (stuck) process.
    if log.structure.dumps:
        d = log.structure.dumps[0]
        where = d.graph_frames[0] if d.graph_frames else (d.frames[0] if d.frames else "?")
        graph = "inside CUDA-graph code" if d.graph_frames else "no CUDA-graph frame in the dump"
        f = make_failure(signature("hang-stack-dump"), d.line_no,
                         f"{d.kind} dump, {d.threads} thread(s); innermost frame seen: {where} ({graph})", d.rank)
        f.count = len(log.structure.dumps)
        failures.append(f)
    failures.sort(key=lambda f: (f.line_no is None, f.line_no or 0))
    stack = log.stack or {"name": "unknown", "description": "unknown", "megatron": False}
    notes: list[str] = list(folded)
    if not stack.get("megatron"):
        neutral = [_neutral(f) for f in failures]
        failures = [f for f in neutral if f is not None]
        if failures:
            notes.append(UNKNOWN_STACK_NOTE if stack.get("name") == "unknown"
                         else CATALOGUE_NOTE.format(stack=stack.get("description", stack.get("name"))))
    # 5. An error string quoted in prose (a web page, a docs table, an issue sentence) is hedged.
    notes += hedge(failures, log, signature)

    if not failures and log.format in ("plain-text", "generic-log"):
        notes.append(f"nothing to read: {log.format_reason}")
    status = quoted_capture(log, failures)  # a capture error quoted in prose is no capture of a run
    summary = SUMMARY[status]
    if status in ("unknown", "mentioned") and log.iterations:
        summary = (f"unknown: no CUDA-graph capture message in {len(log.iterations)} iteration lines "
                   "(an eager run, or graphs silently off)")
    ids = {f.id for f in failures}
    hang = "yes" if ids & _HANG_IDS else ("no" if log.training_done and "teardown-hang" not in ids else "unknown")
    if hang == "unknown" and not failures and log.iterations and not log.training_done:
        last = log.iterations[-1]
        if last.iteration < last.train_iters:
            notes.append(STOPPED_NOTE.format(it=last.iteration, total=last.train_iters))
    if any(f.id in ("nan-after-capture", "nan-or-inf") for f in failures):
        nan = "yes, after a capture" if "nan-after-capture" in ids else "yes; whether graphs are involved is unknown"
    else:
        nan = "no" if log.iterations else "unknown"
    return Verdict(
        stack=stack,
        failures=failures,
        capture_status=status,
        capture_summary=summary,
        hang=hang,
        nan=nan,
        notes=notes,
        exceptions=[e.to_dict() for e in excs[:20]],
        dumps=[d.to_dict() for d in log.structure.dumps[:10]],
    )


def _fold_consequences(failures: list[Failure]) -> tuple[list[Failure], list[str]]:
    """Drop findings whose line only reports the consequence of an earlier error finding nearby."""
    causes = [f for f in failures if not f.consequence and f.severity == "error" and f.line_no is not None
              and f.id not in _GENERIC_IDS]
    kept, notes = [], []
    for f in failures:
        cause = None
        if f.consequence and f.line_no is not None:
            cause = next((c for c in causes if f.line_no - _CHAIN_LINES <= c.line_no < f.line_no), None)
        if cause is None:
            kept.append(f)
        else:
            notes.append(f"line {f.line_no} ({f.evidence[:80]!r}) is a consequence of the earlier error at line "
                         f"{cause.line_no} ({cause.id}): the first failure is the cause")
    return kept, notes


def _copy(f: Failure) -> Failure:
    return Failure(**{k: (list(v) if isinstance(v, list) else v) for k, v in f.__dict__.items()})


def _exc_evidence(e: ExceptionRecord) -> str:
    """The headline, the innermost frame and, when it is another one, the innermost frame of a known
    package (the code a user can act on: Megatron, TE, vLLM, SGLang, torch.distributed ...)."""
    inner = e.frames[-1] if e.frames else None
    where = f" [innermost frame {inner}]" if inner else ""
    known = next((f for f in reversed(e.frames) if package_of(f)), None)
    if known is not None and known is not inner:
        where += f" [innermost {package_of(known)} frame {known}]"
    return f"{e.headline()}{where}"


def _uncaught_cause(e: ExceptionRecord) -> str:
    phase = e.phase
    where = f" inside CUDA-graph code ({phase})" if phase else ""
    return f"`{e.type}` was raised{where} and no catalogue signature explains it."


def _neutral(f: Failure) -> Failure | None:
    """The stack-neutral form of a finding for a non-Megatron log (None: Megatron-only finding)."""
    sig = next((s for s in load_catalog() if s.id == f.id), None)
    if sig is None:
        return f
    if sig.scope == "megatron" and not sig.generic_cause:
        return None
    if sig.generic_cause:
        f.cause = sig.generic_cause
        f.fix = sig.generic_fix or f.fix
    f.rule = None
    return f
