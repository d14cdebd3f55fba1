"""Run one GPU job in its own process tree, with a timeout, and classify how it ended.

A CUDA-graph capture can assert, hit an illegal memory access, run out of memory or hang.
None of that may take the caller down or leave a process behind, so every job runs as
``torchrun --nproc-per-node N -m module ...`` in a new session; on timeout the whole tree
(torchrun starts its workers in sessions of their own) is killed. The log is then classified:
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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

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
    cmd = command or torchrun_command(module, args, nproc)
    start = time.monotonic()
    timed_out = False
    seen: dict[int, str] = {}  # every descendant observed: pid -> start time (guards pid reuse)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=full_env,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        returncode: int | None = None
        deadline = start + timeout_s
        while True:
            _remember(proc.pid, seen)
            try:
                returncode = proc.wait(timeout=min(0.5, max(0.0, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    timed_out = True
                    _remember(proc.pid, seen)
                    kill_tree(proc.pid)
                    try:
                        returncode = proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
                        returncode = None
                    break
        # Leave nothing behind even after a normal exit (a worker can outlive torchrun).
        _kill_leftovers(seen)
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
    advisory is only the cause when nothing worse matched), when that module is installed."""
    try:
        from skill_tools.logs.parse import parse_lines
        from skill_tools.logs.verdict import build
    except ImportError:
        return None
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


def descendants(root: int) -> list[int]:
    """All live descendants of ``root`` (Linux /proc), children before grandchildren."""
    children: dict[int, list[int]] = {}
    for entry in _proc_entries():
        ppid = _ppid(entry)
        if ppid is not None:
            children.setdefault(ppid, []).append(entry)
    out: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop(0)
        for child in children.get(pid, []):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(root: int, *, grace_s: float = 3.0, include_root: bool = True) -> None:
    """SIGTERM the tree (and each member's process group), wait ``grace_s``, then SIGKILL."""
    targets = set(descendants(root))
    if include_root:
        targets.add(root)
    if not targets:
        return
    _signal_all(targets, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) for p in targets):
        time.sleep(0.05)
    targets |= set(descendants(root))
    _signal_all(targets, signal.SIGKILL)


def _remember(root: int, seen: dict[int, str]) -> None:
    for pid in descendants(root):
        stamp = _start_time(pid)
        if stamp is not None:
            seen.setdefault(pid, stamp)


def _kill_leftovers(seen: dict[int, str]) -> None:
    """SIGKILL every remembered descendant that is still the same live process."""
    for pid, stamp in seen.items():
        if _start_time(pid) == stamp and _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _signal_all(pids: Iterable[int], sig: int) -> None:
    groups = set()
    for pid in pids:
        try:
            groups.add(os.getpgid(pid))
        except OSError:
            pass
    own = os.getpgrp()
    for pgid in groups - {own}:
        try:
            os.killpg(pgid, sig)
        except OSError:
            pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _proc_entries() -> list[int]:
    try:
        return [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:  # pragma: no cover - non-Linux
        return []


def _ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None
