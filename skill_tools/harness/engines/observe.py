"""GPU side shared by the engines that run a framework's own loop (megatron-lm, bridge).

What is observed without changing the framework's code path: every ``torch.cuda.CUDAGraph``
capture and replay (:class:`GraphCounter`), CUDA-event times around each call of the framework's
own ``train_step``, kernel time per step of a few profiled steps, peak memory and versions. Rank 0
writes it at exit as the engine's sidecar (:class:`skill_tools.harness.records.Sidecar`). A run's
failure is data: :func:`run_recorded` records how the framework's ``pretrain`` ended.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import torch

from skill_tools.harness.graph_counter import GraphCounter
from skill_tools.harness.records import SIDECAR_SCHEMA_VERSION, Sidecar
from skill_tools.harness.results import driver_version

#: What the sidecar will hold; the engines add their own keys (versions, graph_config, teardown).
STATE: dict[str, Any] = {"schema_version": SIDECAR_SCHEMA_VERSION, "ok": False, "phase": "start",
                         "substitutions": [], "iterations": []}
_STATE = STATE


def wrap_train_step(training, profile_from: int | None, profile_steps: int, headroom: Any = None,
                    headroom_from: int | None = None) -> None:
    """Record CUDA events and graph replays around each call of the framework's own ``train_step``
    (``training`` is the module whose ``train()`` looks it up at call time: Megatron-LM's
    ``megatron.training.training`` or Bridge's ``megatron.bridge.training.train``); the calls
    ``profile_from .. profile_from + profile_steps - 1`` (0-based) run under torch.profiler for the
    GPU-busy time per step (their logged times carry the profiler's overhead). With ``headroom``
    (engine megatron-lm's :class:`~skill_tools.harness.engines.megatron_lm.headroom.Headroom`) the
    calls from ``headroom_from`` up to the profiled ones (the measured steps, no profiler running)
    time the host per part of the step, including what ``train()`` does between two calls; the
    profiled steps attribute the host's synchronisations to those parts. Without ``headroom_from``
    the profiled steps are the timed ones (their times then carry the profiler's overhead). The profile stays CUDA-only: host tracing stretches kernel times (tiny GPT: 1.5 ms of
    kernels read as 10 ms with CPU activity on, 2026-12-03 H200)."""
    from torch.profiler import ProfilerActivity, profile

    from skill_tools.harness.gpu_profile import busy_ms

    orig = training.train_step
    events: list[tuple[torch.cuda.Event, torch.cuda.Event, int, int]] = []
    _STATE["_events"] = events
    if headroom is not None:  # reported once, when the sidecar is written: no work on the timed steps
        _STATE["_headroom"] = headroom
    busy: list[float] = []

    def train_step(*args, **kwargs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        replays, captures = GraphCounter.replays, GraphCounter.captures
        profiled = profile_from is not None and profile_from <= len(events) < profile_from + profile_steps
        if headroom is not None:  # a timed step lasts until the next call: train() logs in between
            timed = (headroom_from <= len(events) < profile_from if headroom_from is not None and profile_from
                     is not None else profiled)
            headroom.iteration_start(timed)
        if profiled:
            torch.cuda.synchronize()
            prof = profile(activities=[ProfilerActivity.CUDA])
            prof.__enter__()
        start.record()
        out = orig(*args, **kwargs)
        end.record()
        if profiled:
            torch.cuda.synchronize()
            prof.__exit__(None, None, None)
            busy.append(busy_ms(prof))
            if headroom is not None:
                headroom.profiled(prof)
            _STATE["kernel_ms_per_step"] = round(sum(busy) / len(busy), 5)
        events.append((start, end, GraphCounter.replays - replays, GraphCounter.captures - captures))
        return out

    training.train_step = train_step


def skip_make_when_compiled() -> None:
    """The wheel has helpers_cpp compiled but no Makefile: skip the ``make`` Megatron would run."""
    try:
        import megatron.core.datasets.helpers_cpp  # noqa: F401
        import megatron.core.datasets.utils as dutils
    except ImportError:
        return
    if (Path(dutils.__file__).parent / "Makefile").exists():
        return
    dutils.compile_helpers = lambda: print("[engine] dataset helpers are compiled in the wheel; make skipped", flush=True)
    _STATE["substitutions"].append("megatron.core.datasets.utils.compile_helpers: skipped (compiled helpers_cpp "
                                   "in the wheel, no Makefile)")


def versions() -> dict[str, Any]:
    from importlib import metadata

    def version(*names: str) -> str | None:
        for n in names:
            try:
                return metadata.version(n)
            except metadata.PackageNotFoundError:
                continue
        return None

    import megatron.core
    import megatron.training

    props = torch.cuda.get_device_properties(0) if torch.cuda.is_available() else None
    return {
        "gpu": props.name if props else None,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        # The distribution's version: megatron.core.__version__ appends the git sha of the working
        # directory's repository when there is one (megatron/core/package_info.py), i.e. ours.
        "megatron_core": version("megatron-core", "megatron_core") or getattr(megatron.core, "__version__", None),
        # The folder name only (a site-packages folder or a checkout): results carry no host paths.
        "megatron_training_from": Path(megatron.training.__file__).parent.parent.parent.name,
        "driver": driver_version(),
        "transformer_engine": version("transformer-engine", "transformer_engine", "transformer-engine-cu13",
                                      "transformer-engine-cu12"),
        "python": platform.python_version(),
    }


def _write_sidecar(path: Path) -> None:
    events = _STATE.pop("_events", [])
    headroom = _STATE.pop("_headroom", None)
    if headroom is not None and headroom.steps:
        _STATE["headroom"] = headroom.report()
    try:
        torch.cuda.synchronize()
        _STATE["iterations"] = [{"cuda_ms": round(s.elapsed_time(e), 5), "replays": r, "captures": c}
                                for s, e, r, c in events]
    except Exception as exc:  # a failed run may leave the context unusable; keep what is known
        _STATE["iterations_error"] = f"{type(exc).__name__}: {exc}"[:500]
    _STATE["captures"] = GraphCounter.captures
    _STATE["replays"] = GraphCounter.replays
    try:
        _STATE["memory"] = {"max_allocated_mb": round(torch.cuda.max_memory_allocated() / 2**20, 2),
                            "max_reserved_mb": round(torch.cuda.max_memory_reserved() / 2**20, 2)}
    except Exception:
        pass
    if int(os.environ.get("RANK", "0")) == 0:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(Sidecar.from_dict(_STATE).to_dict(), indent=1))  # typed: the CLI reads a Sidecar


def engine_arguments(module: str, loop_args: str, argv: list[str] | None,
                     configure: Any = None) -> tuple[argparse.Namespace, list[str]] | None:
    """(the engine's own options before ``--``, the loop's arguments after it), or None after
    printing the usage when there is no ``--``. Both engines observe the same way from here on: the
    sidecar is written at exit and every CUDA graph capture and replay is counted."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print(f"usage: python -m {module} --sidecar OUT.json -- <{loop_args}>", file=sys.stderr)
        return None
    split = argv.index("--")
    ours = argparse.ArgumentParser(prog=module)
    ours.add_argument("--sidecar", required=True)
    ours.add_argument("--profile-from", type=int, default=None, help="0-based train_step call to start profiling")
    ours.add_argument("--profile-steps", type=int, default=0)
    ours.add_argument("--headroom-from", type=int, default=None,
                      help="0-based train_step call from which the host's time per part of the step is timed")
    if configure is not None:
        configure(ours)
    opts = ours.parse_args(argv[:split])
    atexit.register(_write_sidecar, Path(opts.sidecar))
    GraphCounter.install()
    return opts, argv[split + 1:]


def run_recorded(body) -> int:
    """Run an engine's ``body`` (the framework's own pretrain) and record how it ended in the
    sidecar: a failure is data the runner classifies from the log, so nothing escapes as a crash."""
    t0 = time.perf_counter()
    try:
        body()
        _STATE["ok"] = True
        _STATE["phase"] = "done"
    except SystemExit as exc:  # argparse errors and the framework's own exits
        _STATE["exception"] = f"SystemExit: {exc.code}"
        traceback.print_exc()
        return int(exc.code) if isinstance(exc.code, int) else 1
    except Exception as exc:  # the run's failure is data: the runner classifies it from the log
        _STATE["exception"] = f"{type(exc).__name__}: {exc}"[:2000]
        traceback.print_exc()
        return 1
    finally:
        _STATE["wall_s"] = round(time.perf_counter() - t0, 3)
    return 0
