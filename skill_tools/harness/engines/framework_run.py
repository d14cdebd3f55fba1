"""CLI half shared by the engines that run a framework's own loop (``megatron-lm``, ``bridge``).

Both run one ``torchrun`` per variant and trial, let the framework log its iterations in
Megatron-LM's format, and write a sidecar (:mod:`skill_tools.harness.engines.observe`). What
follows from that is the same for both and lives here: the iteration plan, the files of a run,
and the per-run record read from the log and the sidecar that the results aggregation reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skill_tools.config.model import CanonicalConfig
from skill_tools.harness.records import Sidecar
from skill_tools.harness.spec import VariantSpec

#: Steps between Python's garbage collections under a ``manual_gc`` variant (Megatron-LM's
#: ``--manual-gc-interval``, Bridge's ``train.manual_gc_interval``).
MANUAL_GC_INTERVAL = 100


def set_loop_settings(spec: VariantSpec, cfg: CanonicalConfig) -> None:
    """The variant's settings of the training loop around the graphs (the optimizer graph, manual
    GC), in the canonical keys both frameworks read; each engine renders them its own way."""
    if spec.optimizer_graph:
        cfg.set("optimizer.optimizer_cuda_graph", True)
    if spec.manual_gc:
        cfg.set("train.manual_gc", True)
        cfg.set("train.manual_gc_interval", MANUAL_GC_INTERVAL)


def train_iters(spec: VariantSpec) -> int:
    """Warmup, the capture iteration, settle iterations, the measured ones, then the profiled ones."""
    return first_measured(spec) + spec.steps + spec.profile_steps


def first_measured(spec: VariantSpec) -> int:
    """0-based index of the first measured iteration."""
    return spec.warmup_steps + 1 + spec.settle_steps


def data_parallel(spec: VariantSpec) -> int:
    """Data-parallel ranks: what is left of the world after tensor and pipeline parallelism."""
    return max(1, spec.nproc // (spec.tp * spec.pp))


def run_files(spec: VariantSpec, trial: int, out_dir: Path) -> tuple[Path, Path]:
    """(log, sidecar) of one run under ``out_dir``: ``logs/<slug>-t<trial>.log``, ``raw/<slug>-t<trial>.sidecar.json``."""
    slug = spec.slug
    return out_dir / "logs" / f"{slug}-t{trial}.log", out_dir / "raw" / f"{slug}-t{trial}.sidecar.json"


def trial_record(trial: int, iso_d: dict[str, Any], log_path: Path, out_dir: Path,
                 worker: dict[str, Any] | None) -> dict[str, Any]:
    """The runner's per-trial shape; a process that exited 0 without a complete result is a failure."""
    iso_d = dict(iso_d, log_path=log_path.relative_to(out_dir).as_posix())  # relative to the results folder
    if iso_d.get("error_class") is None and (worker is None or not worker.get("ok")):
        iso_d["error_class"] = "no_result" if worker is None else "worker_error"
        iso_d["evidence"] = (worker or {}).get("exception") or "the run exited 0 without a complete log"
    return {"trial": trial, "isolation": iso_d, "worker": worker}


def record_from_log(spec: VariantSpec, log_path: Path, sidecar: Sidecar | None, flags: list[str], *,
                    engine: str, model_flags: int, training_source: str | None,
                    training_path: str | None) -> dict[str, Any]:
    """The per-run record :func:`skill_tools.harness.results.aggregate_variant` reads. ``flags`` is
    what the framework was given, its first ``model_flags`` entries the engine's model."""
    from skill_tools.logs.parse import parse_path
    from skill_tools.logs.steady import detect_capture

    log = parse_path(log_path)
    side = sidecar or Sidecar()
    its = sorted({it.iteration: it for it in log.iterations if it.rank in (None, 0)}.values(),
                 key=lambda it: it.iteration)
    lo, hi = first_measured(spec), first_measured(spec) + spec.steps
    step_ms = [it.elapsed_ms for it in its]
    losses = [it.losses.get("lm loss") for it in its]
    cap = detect_capture(log)
    cuda = side.iterations
    # The iteration that captured (CUDA events around Megatron's train_step), else the log's.
    cap_idx = next((i for i, r in enumerate(cuda) if r.captures), None)
    if cap_idx is None and cap.iteration is not None:
        cap_idx = cap.iteration - 1
    capture_step_ms = None
    if cap_idx is not None and cap_idx < len(cuda):
        capture_step_ms = cuda[cap_idx].cuda_ms
    elif cap_idx is not None and cap_idx < len(step_ms):
        capture_step_ms = step_ms[cap_idx]
    replays_measured = sum(r.replays for r in cuda[lo:hi])
    measured = len(cuda[lo:hi])
    graphed = spec.graphed
    captures = int(side.captures or 0)
    failures = [f.to_dict() if hasattr(f, "to_dict") else dict(f.__dict__) for f in log.failures]
    ok = bool(side.ok) and len(its) >= train_iters(spec)
    record: dict[str, Any] = {
        "name": spec.name, "engine": engine, "ok": ok, "phase": side.phase,
        "exception": side.exception,
        "flags": flags, "graph_flags": flags[model_flags:], "megatron_training": training_source,
        "megatron_training_path": None if training_path is None else Path(training_path).name,
        "env": dict(side.versions or {}),
        "iterations_logged": len(its),
        "step_ms_all": [x for x in step_ms if x is not None],
        "raw_step_ms": [x for x in step_ms[lo:hi] if x is not None],
        "cuda_step_ms": [r.cuda_ms for r in cuda[lo:hi]],
        "kernel_ms_per_step": side.kernel_ms_per_step,
        "headroom": side.headroom,
        "losses": [x for x in losses if x is not None] if all(x is not None for x in losses) else None,
        "grad_norms": [it.grad_norm for it in its],
        "captures_observed": captures,
        "graphs_count": captures,
        "graph_records": {"torch.cuda.CUDAGraph captures": captures},
        "captured": captures > 0,
        "replays_measured": replays_measured,
        "replays_per_step": replays_measured / measured if measured else None,
        "replayed": bool(graphed and measured and replays_measured >= measured),
        "capture_iteration": cap.iteration,
        "capture_s": cap.seconds,
        # The whole capturing iteration (warmup run, capture, first replay), for full-iteration graphs
        # whose capture time Megatron-LM does not log.
        "capture_step_ms": capture_step_ms,
        "capture_log": cap.to_dict(),
        "memory": side.memory,
        "capture_stream": "Megatron-LM's own",
        "substitutions": side.substitutions or [],
        "log_failures": failures[:5],
    }
    if ok and graphed and not record["captured"]:
        record["ok"] = False
        record["exception"] = "the run finished but no CUDA graph was captured"
    return record
