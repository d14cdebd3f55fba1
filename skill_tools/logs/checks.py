"""Derived checks named by ``check:`` in signatures.yaml, dispatched by name.

A signature with a ``check`` is not reported just because its needle matched: its check decides.
Every name used in the catalog must be registered here (the loader refuses any other), and each
says where it runs:

- ``line``: when a needle matches, ``run_check`` calls it with the parser's state;
- ``end``: at the end of the parse (``resolve_deferred``), when the whole text is known;
- ``verdict``: applied by ``verdict.py`` to the tracebacks (``frames``), or reported from the text's
  structure (``derived``: by ``verdict.py``, and by ``parse.py`` for a log that ends in NCCL teardown);
- ``compare``: reported by ``compare.py`` from two logs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

Signature = Any  # diagnose.Signature (this module sits below diagnose: it imports nothing from it)

#: Capture statuses that show the text comes from a run that captured (or tried to).
CAPTURE_CONTEXT = frozenset({"capture-started", "captured", "replayed", "capture-failed"})


class CheckContext(NamedTuple):
    parser: Any  # parse._Parser (duck-typed: diag, log, _nan, deferred)
    line_no: int
    evidence: str
    rank: int | None


@dataclass(frozen=True)
class Check:
    name: str
    phase: str  # line | end | verdict | compare
    doc: str
    run: Callable[[Signature, CheckContext], None] | None = None


def _nan(sig: Signature, ctx: CheckContext) -> None:
    ctx.parser._nan(ctx.line_no, ctx.evidence, ctx.rank)


def _after_training_done(sig: Signature, ctx: CheckContext) -> None:
    # The same scheduler line before training finished is a hang or a slow run, not a teardown hang.
    target = sig if ctx.parser.log.training_done else ctx.parser.diag.signature("job-time-limit")
    ctx.parser.diag.report(target, ctx.line_no, ctx.evidence, ctx.rank)


def _report(sig: Signature, ctx: CheckContext) -> None:
    ctx.parser.diag.report(sig, ctx.line_no, ctx.evidence, ctx.rank)


def _during_capture(sig: Signature, ctx: CheckContext) -> None:
    ctx.parser.deferred.append((sig, ctx.line_no, ctx.evidence, ctx.rank))


CHECKS: dict[str, Check] = {c.name: c for c in (
    Check("nan_after_capture", "line", "NaN/Inf in loss or gradients: nan-after-capture when a capture was seen "
          "before the line, else nan-or-inf", _nan),
    Check("nan_without_capture", "line", "reported by the nan_after_capture check (no capture seen)", _nan),
    Check("after_training_done", "line", "counts only after 'after training is done'; before it the same line is "
          "job-time-limit", _after_training_done),
    Check("time_limit", "line", "reported by the after_training_done check (scheduler kill before the end)",
          _after_training_done),
    Check("during_capture", "end", "reported only when the text shows a capture (started, done, failed, "
          "replayed); otherwise its `otherwise` signature (a cause that needs no graphs)", _during_capture),
    Check("frames", "verdict", "traceback refinement: the error raised in the named frames (or with the named "
          "message) replaces the parent findings in `refines`; a line matching one of its needles reports it "
          "directly", _report),
    Check("derived", "verdict", "reported from the text's structure (traceback, cut traceback, "
          "stack dump, teardown at the end)"),
    Check("config_mismatch", "compare", "reported by the comparison of two logs"),
    Check("no_speedup", "compare", "reported by the comparison of two logs"),
)}


def run_check(sig: Signature, ctx: CheckContext) -> None:
    """Run the line-phase check a matched signature names."""
    check = CHECKS[sig.check]  # the loader guarantees the name is registered
    if check.run is not None:
        check.run(sig, ctx)


def capture_context(log: Any) -> bool:
    """Whether the text shows a capture (tried or done) anywhere."""
    return log.evidence.status in CAPTURE_CONTEXT or any(e.phase for e in log.structure.exceptions)


def resolve_deferred(parser: Any, log: Any) -> None:
    """End-phase checks: a deferred match becomes its signature with capture context, or its `otherwise`."""
    in_capture = capture_context(log)
    for sig, line_no, evidence, rank in parser.deferred:
        target = sig if in_capture else (parser.diag.signature(sig.otherwise) if sig.otherwise else None)
        if target is not None:
            parser.diag.report(target, line_no, evidence, rank)
