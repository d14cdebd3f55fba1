"""CLI half of engine ``proxy``: one isolated worker per variant and trial, and the evals'
``execute_config`` (run one config's graph settings next to eager)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools.config.model import CanonicalConfig
from skill_tools.harness.isolation import run_isolated
from skill_tools.harness.results import LOSS_TOLERANCE
from skill_tools.harness.runner import WORKER_ENV, require_gpu, run_variants
from skill_tools.harness.spec import VariantSpec, refuse_illegal, spec_from_config, with_plan

WORKER_MODULE = "skill_tools.harness.engines.proxy"
WORKER = f"torchrun -m {WORKER_MODULE} (proxy loop)"


def run_one(spec: VariantSpec, trial: int, out_dir: Path, timeout_s: float,
            env: dict[str, str] | None = None) -> dict[str, Any]:
    """One isolated worker run -> {"trial", "isolation": {...}, "worker": {...} | None}."""
    slug = spec.slug
    spec_path = out_dir / "specs" / f"{slug}.json"
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(spec.to_record())
    result_path = out_dir / "raw" / f"{slug}-t{trial}.json"
    result_path.unlink(missing_ok=True)
    iso = run_isolated(WORKER_MODULE, ["--spec", f"@{spec_path}", "--out", str(result_path)],
                       nproc=spec.nproc, timeout_s=timeout_s, env={**WORKER_ENV, **(env or {})},
                       log_path=out_dir / "logs" / f"{slug}-t{trial}.log")
    worker = None
    if result_path.exists():
        try:
            worker = json.loads(result_path.read_text())
        except json.JSONDecodeError:
            worker = None
    iso_d = iso.to_dict()
    if iso.ok and (worker is None or not worker.get("ok")):
        iso_d["error_class"] = "no_result" if worker is None else "worker_error"
        iso_d["evidence"] = (worker or {}).get("exception") or "worker exited 0 without a result file"
    return {"trial": trial, "isolation": iso_d, "worker": worker}


def workload_record(base: VariantSpec, trials: int) -> dict[str, Any]:
    """What the proxy ran: recorded with every result."""
    return {
        "workload": base.workload, "size": base.size, "shape": base.shape.__dict__ | {
            "ffn_hidden_size": base.shape.ffn_hidden_size}, "steps": base.steps, "trials": trials,
        "warmup_steps": base.warmup_steps, "settle_steps": base.settle_steps, "nproc": base.nproc,
        "layer_spec": base.layer_spec, "precision": "bf16", "optimizer": "adam (MCore, Float16OptimizerWithFloat16Params)",
        "ddp": "MCore DistributedDataParallel", "micro_batch_size": base.micro_batch_size,
        "num_microbatches": base.num_microbatches, "order": "interleaved by trial",
        "capture_stream": base.capture_stream,
    }


# --------------------------------------------------------------------------------------------
# Agreed API for the evals: execute one config for real
# --------------------------------------------------------------------------------------------


@dataclass
class ExecutionResult:
    """Did a config capture, replay and keep the loss of eager on the proxy."""

    captured: bool
    replayed: bool
    loss_ok: bool
    error_class: str | None
    evidence: str | None
    variant: str = ""
    speedup: float | None = None
    loss_max_abs_delta: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "captured": self.captured, "replayed": self.replayed, "loss_ok": self.loss_ok,
            "error_class": self.error_class, "evidence": self.evidence, "variant": self.variant,
            "speedup": self.speedup, "loss_max_abs_delta": self.loss_max_abs_delta, "details": self.details,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ExecutionResult":
        return cls(**{k: d.get(k) for k in ("captured", "replayed", "loss_ok", "error_class", "evidence",
                                             "variant", "speedup", "loss_max_abs_delta")},
                   details=d.get("details") or {})


def execution_spec(cfg: CanonicalConfig, *, workload: str = "dense", size: str = "tiny", steps: int = 20) -> VariantSpec:
    """The proxy variant that runs ``cfg``'s graph settings (its digest is the cache key).

    Capture runs on MCore's shared capture stream: the set-up measured to capture every impl on
    PyTorch builds without set_override_stale_capture_stream
    (benchmarks/results/2026-12-02-training-h200-dense-tiny-same-stream.json); the config's own
    settings are unchanged.
    """
    return with_plan(spec_from_config(cfg, workload=workload, size=size), steps=steps, profile_steps=0,
                     capture_stream="shared")


def execute_config(cfg: CanonicalConfig, *, workload: str = "dense", size: str = "tiny", steps: int = 20,
                   timeout_s: float = 300, cache_dir: Path | None = None) -> ExecutionResult:
    """Run ``cfg``'s graph settings on the proxy next to eager; cached by the variant's hash.

    Raises InputError when the config cannot run on the proxy or the validator refuses it,
    NoGpuError without a GPU (cache hits are answered without one).
    """
    spec = execution_spec(cfg, workload=workload, size=size, steps=steps)
    eager = VariantSpec(name="eager", workload=spec.workload, size=spec.size, steps=steps, profile_steps=0,
                        warmup_steps=spec.warmup_steps, settle_steps=spec.settle_steps, capture_stream=spec.capture_stream)
    refuse_illegal([spec], cfg)
    cache_file = Path(cache_dir) / f"execute-{spec.digest()}.json" if cache_dir else None
    if cache_file is not None and cache_file.exists():
        return ExecutionResult.from_dict(json.loads(cache_file.read_text()))
    require_gpu()
    out_dir = Path(cache_dir or ".") / f"execute-{spec.digest()}"
    specs = [eager, spec] if spec.graphed else [spec]
    doc = run_variants(specs, trials=1, out_dir=out_dir, timeout_s=timeout_s, progress=False, run=run_one,
                       workload=workload_record(specs[0], 1))
    v = doc["variants"][-1]
    result = ExecutionResult(
        captured=bool(v["captured"]) if spec.graphed else False,
        replayed=bool(v["replayed"]) if spec.graphed else False,
        loss_ok=bool(v.get("loss_ok")) if spec.graphed else v["error_class"] is None,
        error_class=v["error_class"],
        evidence=v["evidence"],
        variant=spec.name,
        speedup=(v.get("speedup_vs_eager") or {}).get("point"),
        loss_max_abs_delta=v.get("loss_max_abs_delta"),
        details={"graphs_count": v["graphs_count"], "graph_records": v.get("graph_records"),
                 "step_ms": v.get("step_ms"), "loss_tolerance": LOSS_TOLERANCE, "spec": spec.to_dict(),
                 "env": doc["env"]},
    )
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(result.to_dict(), indent=1))
    return result
