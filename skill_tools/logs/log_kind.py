"""What kind of text a parse read: its format, the stack that wrote it, and the capture evidence its
structure gives (tracebacks through graph code, stack dumps in replay).

Formats, strongest evidence first: Megatron-LM / Bridge per-iteration lines (by their timestamp
shape and Bridge's markers), ``mcore-events`` (graph events, memory or timer lines without
iterations), ``traceback``, ``framework-log`` (error, CUDA-graph or framework lines), ``generic-log``
(lines with log prefixes - timestamps, levels, ranks, process tags - and nothing else recognised:
a log in which nothing is wrong), ``unknown`` (not a log: the caller refuses it).
"""

from __future__ import annotations

from typing import Any

from skill_tools.logs.diagnose import signature

#: A text is a plain log when this share of its non-blank lines carry a log prefix.
GENERIC_LOG_SHARE = 0.3


def _scope(sig_id: str) -> str:
    try:
        return signature(sig_id).scope
    except KeyError:
        return "any"


def stack_votes(p: Any) -> dict[str, int]:
    """Megatron's own line formats vote for its stack (Bridge when its markers are there)."""
    log = p.log
    # TE's make_graphed_callables is used without Megatron too: its events are not Megatron's evidence.
    mcore_events = sum(1 for e in log.events if e.impl != "transformer_engine")
    own = len(log.iterations) + len(log.memory) + len(log.timers) + mcore_events + p.megatron_markers
    # A Megatron-only message (config asserts, TECudaGraphHelper, ...) is evidence of the stack too.
    own += sum(2 for f in log.failures if _scope(f.id) == "megatron")
    if p.bridge_markers or any(r.unit == "GB" for r in log.memory):
        return {"megatron-bridge": 5 + own}
    return {"megatron-lm": own} if own else {}


def structural_evidence(log: Any) -> None:
    """Tracebacks through graph code and stack dumps in graph replay are capture evidence too."""
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
            log.evidence.add(d.line_no, "replayed", f"{d.kind} stack dump in graph code: {d.graph_frames[0]}", d.rank)
    for ev in log.events:
        if ev.kind == "capture_end":
            log.evidence.add(ev.line_no, "captured", ev.text, ev.rank)
        elif ev.kind == "capture_start":
            log.evidence.add(ev.line_no, "capture-started", ev.text, ev.rank)


def detect_format(p: Any) -> None:
    log = p.log
    n = len(log.iterations)
    bridge = p.bridge_markers > 0 or any(r.unit == "GB" for r in log.memory)
    if n:
        if p.n_ts_us and not bridge:
            log.format = "megatron-lm"
            log.format_reason = f"{p.n_ts_us} iteration lines with microsecond timestamps (core_v0.16+)"
        elif bridge:
            log.format = "megatron-bridge"
            log.format_reason = (
                f"{n} iteration lines plus Bridge markers (Step Time / memory (GB) / "
                "Starting training loop / Deleting CUDA graphs)"
            )
        elif p.n_ts_plain:
            log.format = "megatron-lm-0.15-or-bridge"
            log.format_reason = (
                f"{p.n_ts_plain} iteration lines with second-resolution timestamps and no Bridge "
                "markers (Megatron-LM <= core_v0.15, or Bridge with its Step Time line filtered out)"
            )
        else:
            log.format = "megatron-lm-legacy"
            log.format_reason = f"{p.n_no_ts} iteration lines without timestamps"
    elif log.events or log.memory or log.timers or p.megatron_markers or p.bridge_markers:
        log.format = "mcore-events"
        log.format_reason = "no per-iteration lines; recognised MCore/Megatron lines (graph events, errors, memory or timers)"
    elif log.structure.exceptions or log.structure.dumps:
        ne, nd = len(log.structure.exceptions), len(log.structure.dumps)
        log.format = "traceback"
        log.format_reason = f"no per-iteration lines; {ne} traceback(s)/exception line(s), {nd} stack dump(s)"
    elif log.failures or log.evidence.items or log.structure.stack_votes:
        log.format = "framework-log"
        log.format_reason = ("no per-iteration lines; recognised error, CUDA-graph or framework lines "
                             "(" + ", ".join(sorted(log.structure.stack_votes) or ["error lines"]) + ")")
    elif log.logged_lines and log.logged_lines >= GENERIC_LOG_SHARE * log.text_lines:
        log.format = "generic-log"
        log.format_reason = (f"{log.logged_lines} of {log.text_lines} lines carry log prefixes (timestamps, levels, "
                             "ranks, process tags); no training, traceback or CUDA-graph line: nothing to diagnose")
