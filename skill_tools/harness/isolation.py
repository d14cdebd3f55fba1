"""Run one GPU job in its own process tree, with a timeout, and classify how it ended.

A CUDA-graph capture can assert, hit an illegal memory access, run out of memory or hang.
None of that may take the caller down or leave a process behind, so every job runs as
``torchrun --nproc-per-node N -m module ...`` in a new session; on timeout the whole tree
(torchrun starts its workers in sessions of their own) is killed, and after any exit every
process that still carries the job's marker variable (``SKILL_TOOLS_JOB``, inherited by each
descendant, orphans included; the way Jenkins finds a build's strays) is killed too. The process
tree comes from psutil, whose process handles guard against a reused pid. The log is then classified:
first by the log parser's failure signatures (``skill_tools.logs.diagnose.diagnose_lines``),
then by the generic classes below (timeout, OOM, illegal memory access, signal, exit code).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

import psutil

#: Environment variable set to a fresh token for each job; every descendant inherits it.
JOB_MARKER = "SKILL_TOOLS_JOB"
#: The clock of the timeout (a module attribute so that a test can move it instead of racing it).
_now = time.monotonic

#: Generic failure classes, checked in order after the log parser's signatures.
_GENERIC_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("oom", re.compile(r"CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|out of memory")),
    ("illegal_memory_access", re.compile(r"illegal memory access|CUDA_ERROR_ILLEGAL_ADDRESS")),
    ("capture_error", re.compile(r"operation not permitted when stream is capturing|"
                                 r"cudaErrorStreamCapture\w*|capture.*(?:invalidated|unsupported)", re.I)),
    ("nccl_error", re.compile(r"NCCL (?:error|WARN)|ncclInternalError|ncclUnhandledCudaError")),
    ("assertion", re.compile(r"^\s*AssertionError\b|\bAssertionError:")),
)

_TAIL_LINES = 40


@dataclass
class IsolatedResult:
    """How one isolated job ended. ``error_class`` is None when it exited 0."""

    returncode: int | None
    timed_out: bool
    log_path: Path
    tail: str
    error_class: str | None
    evidence: str | None
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error_class is None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["log_path"] = str(self.log_path)
        return d


def torchrun_command(module: str, args: list[str], nproc: int) -> list[str]:
    """``torchrun --standalone --nproc-per-node N -m module args`` with this interpreter."""
    return [sys.executable, "-m", "torch.distributed.run", "--standalone",
            f"--nproc-per-node={int(nproc)}", "-m", module, *args]


def run_isolated(
    module: str,
    args: list[str],
    *,
    nproc: int = 1,
    timeout_s: float,
    env: dict | None = None,
    log_path: Path,
    command: list[str] | None = None,
) -> IsolatedResult:
    """Run ``module`` under torchrun; stdout+stderr go to ``log_path``; never raises for job failure.

    ``command`` replaces the torchrun command line (used for launching without torchrun).
    """
    log_path = Path(log_path)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    full_env = dict(os.environ)
    full_env.update({k: str(v) for k, v in (env or {}).items()})
    full_env.setdefault("PYTHONUNBUFFERED", "1")
    token = uuid.uuid4().hex
    full_env[JOB_MARKER] = token
    cmd = command or torchrun_command(module, args, nproc)
    start = time.monotonic()
    timed_out = False
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=full_env,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        returncode: int | None = None
        deadline = _now() + timeout_s
        while True:
            try:
                returncode = proc.wait(timeout=min(0.5, max(0.0, deadline - _now())))
                break
            except subprocess.TimeoutExpired:
                if _now() >= deadline:
                    timed_out = True
                    kill_tree(proc.pid, marker=token)
                    try:
                        returncode = proc.wait(timeout=60)
                    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
                        returncode = None
                    break
        # Leave nothing behind even after a normal exit (a worker can outlive torchrun).
        _signal_all(marked(token), signal.SIGKILL)
    wall = time.monotonic() - start
    lines = _read_lines(log_path)
    error_class, evidence = classify(lines, returncode, timed_out, timeout_s)
    return IsolatedResult(
        returncode=returncode,
        timed_out=timed_out,
        log_path=log_path,
        tail="\n".join(lines[-_TAIL_LINES:]),
        error_class=error_class,
        evidence=evidence,
        wall_s=round(wall, 3),
    )


def classify(lines: list[str], returncode: int | None, timed_out: bool,
             timeout_s: float | None = None) -> tuple[str | None, str | None]:
    """(error_class, evidence line) for a finished job; (None, None) when it succeeded."""
    if not timed_out and returncode == 0:
        return None, None
    lines = _without_launcher_epilogue(lines)
    if timed_out:
        last = next((ln for ln in reversed(lines) if ln.strip()), "")
        return "timeout", f"no exit after {timeout_s:g} s; last line: {last.strip()[:300]}"
    found = _diagnose(lines)
    if found is not None:
        return found
    for name, pattern in _GENERIC_PATTERNS:
        for line in lines:
            if pattern.search(line):
                return name, line.strip()[:500]
    if returncode is not None and returncode < 0:
        return f"signal_{_signal_name(-returncode)}", f"killed by signal {_signal_name(-returncode)}"
    sig = _signal_from_torchrun(lines)
    if sig:
        return f"signal_{sig}", next(ln.strip() for ln in lines if sig in ln)[:500]
    exc = _last_exception(lines)
    return f"exit_{returncode}", exc or f"exit status {returncode}"


_LAUNCHER_FAILED = re.compile(r"torch/distributed/elastic/multiprocessing/api\.py.*failed \(exitcode")


def _without_launcher_epilogue(lines: list[str]) -> list[str]:
    """Drop torchrun's own failure report: it names the launcher, never the cause."""
    for i, line in enumerate(lines):
        if _LAUNCHER_FAILED.search(line) and i > 0:
            return lines[:i]
    return lines


def _diagnose(lines: list[str]) -> tuple[str, str] | None:
    """The log parser's first error-severity failure (a warning such as MCore's stale-capture-stream
    advisory is only the cause when nothing worse matched)."""
    from skill_tools.logs.parse import parse_lines
    from skill_tools.logs.verdict import build

    # The verdict `skill-tools logs` gives, so a traceback raised in a known place gets its specific
    # cause (e.g. the dropless-MoE dispatcher sync) rather than the generic capture error.
    failures = build(parse_lines(lines)).failures
    if not failures:
        return None
    first = next((f for f in failures if f.severity == "error"), failures[0])
    return str(first.id), str(first.evidence)[:500]


_EXC_RE = re.compile(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception)):\s*(.*)$")


def _last_exception(lines: list[str]) -> str | None:
    for line in reversed(lines):
        m = _EXC_RE.match(line.strip())
        if m:
            return line.strip()[:500]
    return None


def _signal_from_torchrun(lines: list[str]) -> str | None:
    for line in lines:
        m = re.search(r"Signal (\d+) \((SIG\w+)\)", line)
        if m:
            return m.group(2)
    return None


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return str(num)


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()
    except OSError:
        return []


# --------------------------------------------------------------------------------------------
# Process-tree cleanup
# --------------------------------------------------------------------------------------------


def _descendants(root: int) -> list[psutil.Process]:
    try:
        return psutil.Process(root).children(recursive=True)
    except psutil.Error:
        return []


def marked(token: str) -> list[psutil.Process]:
    """Live processes (other than this one) whose environment carries ``JOB_MARKER=token``."""
    out = []
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        try:
            if proc.environ().get(JOB_MARKER) == token:
                out.append(proc)
        except psutil.Error:  # gone, a zombie, or not ours to read
            continue
    return out


def kill_tree(root: int, *, grace_s: float = 3.0, include_root: bool = True, marker: str | None = None) -> None:
    """SIGTERM the tree (each member's process group too) and every process carrying
    ``marker``, wait up to ``grace_s`` for them to exit, then SIGKILL what is left."""
    targets = _tree(root, include_root, marker)
    if not targets:
        return
    _signal_all(targets, signal.SIGTERM)
    _, alive = psutil.wait_procs(targets, timeout=grace_s)
    late = [p for p in _tree(root, include_root, marker) if p not in targets]  # started during the grace
    _signal_all(alive + late, signal.SIGKILL)


def _tree(root: int, include_root: bool, marker: str | None) -> list[psutil.Process]:
    procs = _descendants(root)
    if include_root:
        try:
            procs.insert(0, psutil.Process(root))
        except psutil.Error:
            pass
    if marker:
        procs += [p for p in marked(marker) if p not in procs]
    return procs


def _signal_all(procs: Iterable[psutil.Process], sig: int) -> None:
    procs = list(procs)
    groups = set()
    for proc in procs:
        try:
            groups.add(os.getpgid(proc.pid))
        except OSError:
            pass
    own = os.getpgrp()
    for proc in procs:
        try:
            proc.send_signal(sig)  # psutil refuses a pid that now names another process
        except psutil.Error:
            pass
    for pgid in groups - {own}:
        try:
            os.killpg(pgid, sig)
        except OSError:
            pass
