"""Match log lines against the failure-signature catalog (``signatures.yaml``) -> Failures.

The catalog is data; this module only knows how to match it quickly and how to report a match:
one Failure per signature id, quoting the first matching line, counting repeats across ranks.

Speed: a line is first tested against a handful of short trigger substrings taken from the
needles themselves; only lines that contain a trigger are scanned against every needle. Because
each trigger is a substring of its needles, the gate never hides a match.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from skill_tools.logs.checks import CHECKS

CATALOG_PATH = Path(__file__).with_name("signatures.yaml")
EVIDENCE_MAX = 400

# Short substrings that the needles contain (first one listed wins). Few and broad keeps the gate
# cheap; a needle or regex literal containing none of them becomes its own trigger.
_TRIGGERS = (
    "raph", "rror", "NCCL", "nccl", "stream", "illegal", "memory", "found ", "backend",
    "launch failure", "is_moe_layer", "exitcode", "Segmentation", "SIGSEGV", "TIME LIMIT",
    "FlashAttention", "watchdog", "don't match",
)
# Second level for triggers that many needles share (lines mentioning graph.py are common).
_SUBTRIGGERS = {
    "raph": ("cudagraph", "CUDA graph", "cuda graph", "CUDA Graph", "cuda_graph", "cuda-graph",
             "graphable", "graphed", "graphing"),
    "rror": ("cudaError", "OutOfMemory", "nccl", "CUDA error", "NCCL error"),
}


@dataclass(frozen=True)
class Signature:
    id: str
    severity: str
    needles: tuple[str, ...]
    regex: tuple[tuple[str, re.Pattern[str]], ...]
    needle_rules: dict[str, str]  # needle -> more specific validator rule id
    check: str | None
    cause: str
    fix: str
    rule: str | None
    pain_point: str | None
    source: str
    #: "megatron" (a Megatron-only message or fix) or "any" (text any PyTorch program can print).
    scope: str = "megatron"
    generic_cause: str = ""
    generic_fix: str = ""
    #: Traceback-frame refinement (check: frames): frame substrings, refined parent ids, and
    #: exception-message substrings that identify it without a parent match.
    frames: tuple[str, ...] = ()
    refines: tuple[str, ...] = ()
    message: tuple[str, ...] = ()
    #: check during_capture: the signature reported instead when the text shows no capture.
    otherwise: str | None = None
    #: needles that report a consequence of an earlier error (verdict folds them into that error)
    consequence: tuple[str, ...] = ()
    #: lines (or multi-line texts) the signature must find, and ones it must not
    positive: tuple[Any, ...] = ()
    negative: tuple[Any, ...] = ()

    def is_consequence(self, text: str) -> bool:
        return any(c in text for c in self.consequence)


@dataclass
class Failure:
    """A diagnosed failure: the signature that matched and the first log line that shows it."""

    id: str
    line_no: int | None
    evidence: str
    cause: str
    fix: str
    rule: str | None
    severity: str = "error"
    count: int = 1
    ranks: list[int] = field(default_factory=list)
    pain_point: str | None = None
    source: str = ""
    log: str | None = None
    consequence: bool = False  # the first line seen reports a consequence of an earlier error
    quoted: bool = False  # the text quotes the error in prose; the finding is hedged (quoting.py)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity,
            "line_no": self.line_no,
            "evidence": self.evidence,
            "cause": self.cause,
            "fix": self.fix,
            "rule": self.rule,
            "count": self.count,
            "ranks": self.ranks,
            "pain_point": self.pain_point,
            "source": self.source,
            "log": self.log,
            "quoted": self.quoted,
        }

    def __str__(self) -> str:
        where = f"line {self.line_no}" if self.line_no is not None else "derived"
        rule = f" [rule {self.rule}]" if self.rule else ""
        rule += " (quoted in prose)" if self.quoted else ""
        more = f" (x{self.count})" if self.count > 1 else ""
        return (
            f"{self.severity.upper()} {self.id}{rule} at {where}{more}:\n"
            f"    | {self.evidence}\n    cause: {self.cause}\n    fix:   {self.fix}"
        )


def _signature(entry: dict[str, Any]) -> Signature:
    regex = tuple(
        (r["contains"], re.compile(r["pattern"])) for r in entry.get("regex") or ()
    )
    needles, needle_rules = [], {}
    for n in entry.get("needles") or ():
        if isinstance(n, dict):
            needles.append(n["text"])
            if n.get("rule"):
                needle_rules[n["text"]] = n["rule"]
        else:
            needles.append(n)
    return Signature(
        id=entry["id"],
        severity=entry.get("severity", "error"),
        needles=tuple(needles),
        regex=regex,
        needle_rules=needle_rules,
        check=entry.get("check"),
        cause=" ".join(str(entry["cause"]).split()),
        fix=" ".join(str(entry["fix"]).split()),
        rule=entry.get("rule"),
        pain_point=entry.get("pain_point"),
        source=" ".join(str(entry.get("source", "")).split()),
        scope=entry.get("scope", "megatron"),
        generic_cause=" ".join(str(entry.get("generic_cause", "")).split()),
        generic_fix=" ".join(str(entry.get("generic_fix", "")).split()),
        frames=tuple(entry.get("frames") or ()),
        refines=tuple(entry.get("refines") or ()),
        message=tuple(entry.get("message") or ()),
        otherwise=entry.get("otherwise"),
        consequence=tuple(entry.get("consequence") or ()),
        positive=tuple((entry.get("examples") or {}).get("positive") or ()),
        negative=tuple((entry.get("examples") or {}).get("negative") or ()),
    )


@functools.lru_cache(maxsize=4)
def load_catalog(path: str | None = None) -> tuple[Signature, ...]:
    """The signature catalog, in priority order (first match wins). Refuses a ``check`` name that no
    check is registered for (checks.py) and an ``otherwise`` that names no signature."""
    with open(path or CATALOG_PATH, encoding="utf-8") as fh:
        data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml when built
    sigs = tuple(_signature(e) for e in data["signatures"])
    ids = {s.id for s in sigs}
    for sig in sigs:
        if sig.check is not None and sig.check not in CHECKS:
            raise ValueError(f"signature {sig.id}: check {sig.check!r} is not registered (known: {sorted(CHECKS)})")
        if sig.otherwise is not None and sig.otherwise not in ids:
            raise ValueError(f"signature {sig.id}: otherwise names no signature: {sig.otherwise!r}")
    return sigs


def signature(sig_id: str) -> Signature:
    for sig in load_catalog():
        if sig.id == sig_id:
            return sig
    raise KeyError(sig_id)


def _evidence(text: str) -> str:
    text = text.strip()
    return text if len(text) <= EVIDENCE_MAX else text[: EVIDENCE_MAX - 3] + "..."


def make_failure(sig: Signature, line_no: int | None, evidence: str, rank: int | None = None,
                 consequence: bool = False) -> Failure:
    return Failure(
        id=sig.id,
        line_no=line_no,
        evidence=_evidence(evidence),
        cause=sig.cause,
        fix=sig.fix,
        rule=next((r for n, r in sig.needle_rules.items() if n in evidence), sig.rule),
        severity=sig.severity,
        ranks=[rank] if rank is not None else [],
        pain_point=sig.pain_point,
        source=sig.source,
        consequence=consequence,
    )


class Diagnoser:
    """Streaming matcher: ``feed`` each line, read ``failures`` at the end.

    Signatures with a ``check`` are not reported by ``feed`` alone: ``match`` returns them so the
    caller (the parser, which knows whether capture happened) can decide; see ``report``.
    """

    def __init__(self, catalog: tuple[Signature, ...] | None = None):
        self.catalog = catalog if catalog is not None else load_catalog()
        self._by_id: dict[str, Failure] = {}
        self._order: list[str] = []
        # trigger -> subtrigger -> [(catalog index, literal, regex or None, signature)], catalog order.
        # Every trigger and subtrigger is a substring of the literals filed under it, so a line
        # that lacks it cannot match them: the gate never hides a match.
        buckets: dict[str, dict[str, list[tuple[int, str, re.Pattern[str] | None, Signature]]]] = {}

        def file(idx: int, literal: str, pattern: re.Pattern[str] | None, sig: Signature) -> None:
            trig = next((t for t in _TRIGGERS if t in literal), literal)
            sub = next((t for t in _SUBTRIGGERS.get(trig, ()) if t in literal), "")
            buckets.setdefault(trig, {}).setdefault(sub, []).append((idx, literal, pattern, sig))

        for idx, sig in enumerate(self.catalog):
            for n in sig.needles:
                file(idx, n, None, sig)
            for contains, pattern in sig.regex:
                file(idx, contains, pattern, sig)
        self._buckets = {
            t: tuple((sub, tuple(entries)) for sub, entries in subs.items()) for t, subs in buckets.items()
        }
        self._triggers = tuple(t for t in _TRIGGERS if t in buckets) + tuple(
            t for t in buckets if t not in _TRIGGERS
        )

    def match(self, text: str) -> Signature | None:
        """The first catalog signature (catalog order) whose needle/regex occurs in ``text``."""
        best: tuple[int, Signature] | None = None
        for t in self._triggers:
            if t not in text:
                continue
            for sub, entries in self._buckets[t]:
                if sub and sub not in text:
                    continue
                for idx, literal, pattern, sig in entries:
                    if best is not None and idx >= best[0]:
                        break
                    if literal in text and (pattern is None or pattern.search(text)):
                        best = (idx, sig)
                        break
        return None if best is None else best[1]

    def report(self, sig: Signature, line_no: int | None, evidence: str, rank: int | None = None,
               consequence: bool = False) -> None:
        """Record one occurrence; repeats of an id bump its count and rank list."""
        f = self._by_id.get(sig.id)
        if f is None:
            self._by_id[sig.id] = make_failure(sig, line_no, evidence, rank, consequence)
            self._order.append(sig.id)
            return
        f.consequence = f.consequence and consequence
        f.count += 1
        if rank is not None and rank not in f.ranks and len(f.ranks) < 64:
            f.ranks.append(rank)

    def feed(self, line_no: int, text: str, rank: int | None = None) -> Signature | None:
        """Match one line; record it unless the signature needs a derived check. Returns the match."""
        sig = self.match(text)
        if sig is not None and sig.check is None:
            self.report(sig, line_no, text, rank, sig.is_consequence(text))
        return sig

    def signature(self, sig_id: str) -> Signature:
        return next(s for s in self.catalog if s.id == sig_id)

    def seen(self, sig_id: str) -> bool:
        return sig_id in self._by_id

    @property
    def failures(self) -> list[Failure]:
        return sorted(
            (self._by_id[i] for i in self._order),
            key=lambda f: (f.line_no is None, f.line_no or 0),
        )
