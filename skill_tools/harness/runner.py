"""CLI-process side of the harness: every variant and trial through an engine's runner.

Trials are interleaved (eager, v1, v2, eager, v1, v2, ...) inside one invocation: host
overhead drifts between invocations (an eager median moved 15.7 -> 19.5 ms between two
calls on the same H200), so only variants measured side by side are compared.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from skill_tools.errors import NoGpuError, require_extra
from skill_tools.harness.results import build_results
from skill_tools.harness.spec import VariantSpec

#: Environment of every worker: one hardware queue (what MCore's CUDA-graph tests set) and
#: deterministic TE attention, so eager and graphed losses are comparable step by step.
WORKER_ENV = {
    "CUDA_DEVICE_MAX_CONNECTIONS": "1",
    "NVTE_ALLOW_NONDETERMINISTIC_ALGO": "0",
    "PYTHONUNBUFFERED": "1",
    "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
}


def require_gpu() -> str:
    """The GPU list from ``nvidia-smi -L``; NoGpuError (exit 2) without one. No torch import.

    First MissingExtraError (exit 2) naming the ``gpu`` extra when torch or megatron-core is not
    installed: the workers run under this interpreter."""
    require_extra("running on a GPU", "gpu", "torch", "megatron.core")
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
            if out.returncode == 0 and "GPU" in out.stdout:
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    raise NoGpuError("no CUDA GPU on this machine (nvidia-smi finds none); bench and precheck train "
                     "on a GPU: run them on a GPU host, see what would run with --dry-run, or print the Bridge "
                     "commands with --bridge-cmd")


class Progress:
    """Progress on stderr: a one-line bar redrawn with ``\\r`` on a terminal; in a pipe or a log
    file (where ``\\r`` redraws pile up into one unreadable line) one plain line per finished
    step. Silent when disabled."""

    def __init__(self, total: int, enabled: bool = True, stream=None):
        self.total, self.done, self.enabled = total, 0, enabled
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False

    def show(self, label: str) -> None:
        if not self.enabled or not self.tty:
            return
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        elapsed = time.monotonic() - self.start
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                          f"{elapsed:6.1f}s {label[:48]:<48}")
        self.stream.flush()

    def step(self, label: str) -> None:
        self.done += 1
        if self.enabled and not self.tty:
            self.stream.write(f"[{self.done}/{self.total} {time.monotonic() - self.start:.1f}s] {label}\n")
            self.stream.flush()
            return
        self.show(label)

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def run_variants(specs: list[VariantSpec], *, trials: int, out_dir: Path, timeout_s: float = 300,
                 progress: bool = True, workload: dict[str, Any],
                 run: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """Run every spec ``trials`` times with ``run`` (an engine's runner), interleaved; a variant that
    fails is not retried. ``workload`` is the engine's record of what it ran."""
    out_dir = Path(out_dir)
    bar = Progress(len(specs) * trials, enabled=progress)
    by_name: dict[str, list[dict[str, Any]]] = {s.name: [] for s in specs}
    failed: set[str] = set()
    for t in range(trials):
        for spec in specs:
            if spec.name in failed:
                bar.step(f"{spec.name} skipped (failed)")
                continue
            bar.show(f"{spec.name} trial {t + 1}/{trials}")
            outcome = run(spec, t, out_dir, timeout_s)
            by_name[spec.name].append(outcome)
            if outcome["isolation"].get("error_class"):
                failed.add(spec.name)
            bar.step(f"{spec.name} trial {t + 1}: " + (outcome["isolation"].get("error_class") or "ok"))
    bar.close()
    return build_results([s.to_dict() for s in specs], by_name, workload=workload)
