"""``--execute``: prove an extracted config on a GPU.

Engine ``megatron-lm`` (the default, as in ``skill-tools bench``): Megatron-LM's own
``pretrain()`` runs the answer's CUDA-graph settings, laid over the task's stated setup, on the
engine's small model of the task's workload (dense or MoE; drop-and-pad when the task says so),
next to an eager run of the same model. The flags are rendered from the canonical config
(:func:`skill_tools.harness.engines.megatron_lm.cli.graph_flags`) and judged by Megatron-LM's own argument
parser; the run goes through :func:`skill_tools.harness.runner.run_variants` and its results
aggregation, with :func:`skill_tools.harness.engines.megatron_lm.cli.run_one` as the run callable. Engine
``proxy``: the harness's own loop from MCore parts (``runner.execute_config``).

What runs is the graph *intent* (impl, modules, warmup, optimizer graph) in the engine's era; the
answer's other keys are validated, not run. Each distinct config runs once; results are cached on
disk by a hash of the config, workload, engine and megatron-core version, so a re-score costs
nothing. Within one scoring, each distinct run (a variant spec: the eager control or a graphed
variant) goes to the GPU once: configs that differ only in keys the engine does not run share it.
Without a GPU every execution is recorded as skipped, with the reason, and the ``executes`` checks
drop out of the scores. ``plan_only`` records the exact flags instead.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable

from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError, MissingExtraError, NoGpuError

DEFAULT_STEPS = 6
DEFAULT_TIMEOUT_S = 300


def config_hash(cfg: CanonicalConfig, workload: str, steps: int, engine: str = "proxy",
                mcore_version: str | None = None) -> str:
    """Stable across runs and machines: sorted JSON of values, env, workload, steps and engine."""
    payload = {"values": dict(cfg), "env": dict(sorted(cfg.env.items())), "workload": workload, "steps": steps}
    if engine != "proxy":
        payload.update(engine=engine, mcore_version=mcore_version)
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:24]


class Executor:
    """Runs configs once per distinct hash; ``runner`` (proxy) or ``run`` (megatron-lm: the
    ``run_variants`` callable) stand in for the GPU in tests."""

    def __init__(self, cache_dir: Path, *, steps: int = DEFAULT_STEPS, timeout_s: int = DEFAULT_TIMEOUT_S,
                 runner: Any = None, engine: str = "proxy", era: Any = None, training: Any = None,
                 run: Callable[..., dict[str, Any]] | None = None, plan_only: bool = False,
                 gpu_check: Callable[[], None] | None = None):
        from skill_tools.harness.engines import get

        self._engine = get(engine)  # InputError for an unknown name
        self.cache_dir = Path(cache_dir)
        self.steps = steps
        self.timeout_s = timeout_s
        self.engine = engine
        self.era = era  # the engine's era (the megatron-core it runs), for engine megatron-lm
        self.training = training  # real_loop.Training, for engine megatron-lm
        self.plan_only = plan_only
        self._runner = runner
        self._run = run
        self._gpu_check = gpu_check
        self._skip_reason: str | None = None
        self._memo: dict[str, dict[str, Any]] = {}
        self._outcomes: dict[tuple[str, int], dict[str, Any]] = {}  # (spec digest, trial) -> run outcome
        self.ran = 0
        self.cached = 0

    # ------------------------------------------------------------------------------------------

    def run(self, cfg: CanonicalConfig, workload: str, task_era: str | None = None) -> dict[str, Any]:
        if not cfg.values:
            return {"skipped": "no config extracted from the answer"}
        if self._engine.runs_user_loop:
            mismatch = self._era_mismatch(task_era)
            if mismatch:
                return {"skipped": mismatch}
            if workload == "inference":
                return {"skipped": f"engine {self.engine} runs training (pretrain()); the task is about inference"}
        version = getattr(self.era, "mcore_version", None)
        key = config_hash(cfg, workload, self.steps, self.engine, version)
        if self.plan_only:
            return {"skipped": "dry run: nothing executed", "plan": self.plan(cfg, workload), "config_hash": key}
        if key in self._memo:
            return self._memo[key]
        path = self.cache_dir / f"{key}.json"
        if path.is_file():
            try:
                result = json.loads(path.read_text())
                result["cache"] = "hit"
                self.cached += 1
                self._memo[key] = result
                return result
            except (OSError, json.JSONDecodeError):
                pass
        if self._skip_reason:
            return {"skipped": self._skip_reason}
        try:
            res = self._real_loop(cfg, workload) if self._engine.runs_user_loop else self._proxy(cfg, workload)
        except MissingExtraError as exc:
            self._skip_reason = str(exc)
            return {"skipped": self._skip_reason}
        except NoGpuError as exc:
            self._skip_reason = f"no GPU on this machine ({exc})"
            return {"skipped": self._skip_reason}
        except InputError as exc:  # the config cannot run (the validator or the engine refuses it)
            res = {"captured": False, "replayed": False, "loss_ok": False, "error_class": "refused",
                   "evidence": [str(exc)[:300]]}
        if res is None:
            return {"skipped": self._skip_reason}
        result = res.to_dict() if hasattr(res, "to_dict") else dict(res)
        result.update(config_hash=key, workload=workload, engine=self.engine)
        self.ran += 1
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2, sort_keys=True, default=str))
        result = dict(result, cache="miss")
        self._memo[key] = result
        return result

    def _era_mismatch(self, task_era: str | None) -> str | None:
        if self.era is None or task_era is None or task_era == self.era.name:
            return None
        return (f"the task is for the {task_era} era and the engine runs megatron-core {self.era.mcore_version} "
                f"({self.era.name}): rerun with a megatron-core of the task's era (--mcore-version, --megatron-lm PATH)")

    # ------------------------------------------------------------------------------------------

    def _specs(self, cfg: CanonicalConfig, workload: str):
        """(eager, graphed) variants of engine megatron-lm or bridge; InputError when the config
        cannot run (for bridge: the catalog read as the Bridge config the engine hands to Bridge)."""
        from skill_tools.harness.spec import VariantSpec, spec_from_config

        spec = spec_from_config(cfg, workload=workload, size="tiny", engine=self.engine, steps=self.steps,
                                profile_steps=0, capture_stream="default")
        eager = VariantSpec(name="eager", engine=self.engine, workload=spec.workload, size=spec.size,
                            steps=self.steps, profile_steps=0, warmup_steps=spec.warmup_steps,
                            settle_steps=spec.settle_steps, capture_stream="default")
        self._engine.refuse_illegal([spec], cfg, self.era)
        return eager, spec

    def _inputs(self, spec) -> dict[str, Any]:
        """What the engine hands to the real loop: Megatron-LM flags or Bridge Hydra overrides."""
        return {self._engine.arguments_key: self._engine.arguments(spec, self.era)}

    def plan(self, cfg: CanonicalConfig, workload: str) -> dict[str, Any]:
        """What would run: the variants and, for engine megatron-lm, the exact Megatron-LM flags."""
        if not self._engine.runs_user_loop:
            from skill_tools.harness.engines.proxy.cli import execution_spec
            try:
                spec = execution_spec(cfg, workload=workload, steps=self.steps)
            except InputError as exc:
                return {"engine": self.engine, "refused": str(exc)[:300]}
            return {"engine": self.engine, "variants": [{"name": "eager"}, {"name": spec.name, "impl": spec.impl,
                                                                      "modules": list(spec.modules)}]}
        try:
            eager, spec = self._specs(cfg, workload)
        except InputError as exc:
            return {"engine": self.engine, "refused": str(exc)[:300]}
        variants = [eager, spec] if spec.graphed else [spec]
        worker = self._engine.worker
        return {"engine": self.engine, "mcore_version": self.era.mcore_version if self.era else None,
                "training": getattr(self.training, "source", None), "worker": worker,
                "variants": [{"name": s.name, "impl": s.impl, "modules": list(s.modules), **self._inputs(s)}
                             for s in variants]}

    def _real_loop(self, cfg: CanonicalConfig, workload: str) -> dict[str, Any]:
        """Eager and graphed runs of the answer's config through Megatron-LM's or Bridge's own loop."""
        from skill_tools.harness.results import LOSS_TOLERANCE
        from skill_tools.harness.runner import require_gpu, run_variants

        eager, spec = self._specs(cfg, workload)
        run = self._run
        if run is None:
            (self._gpu_check or require_gpu)()
            run = self._engine.runner(self.era, megatron_lm=getattr(self.training, "path", None))
        out_dir = self.cache_dir / f"execute-{self.engine}-{spec.digest()}"
        specs = [eager, spec] if spec.graphed else [spec]
        doc = run_variants(specs, trials=1, out_dir=out_dir, timeout_s=self.timeout_s, progress=False,
                           run=self._once(run),
                           workload=self._engine.workload_record(specs[0], 1))
        v = doc["variants"][-1]
        graphed = spec.graphed
        return {"captured": bool(v["captured"]) if graphed else False,
                "replayed": bool(v["replayed"]) if graphed else False,
                "loss_ok": bool(v.get("loss_ok")) if graphed else v["error_class"] is None,
                "error_class": v["error_class"], "evidence": v["evidence"], "variant": spec.name,
                "speedup": (v.get("speedup_vs_eager") or {}).get("point"),
                "loss_max_abs_delta": v.get("loss_max_abs_delta"),
                "details": {"graphs_count": v.get("graphs_count"), "step_ms": v.get("step_ms"),
                            "loss_tolerance": LOSS_TOLERANCE, "spec": spec.to_dict(), "env": doc.get("env"),
                            "workload": doc.get("workload"), **self._inputs(spec)}}

    def _once(self, run: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        """``run`` that answers a spec it has run before (same digest: same flags, same era) with
        that outcome, so many answers' configs cost one GPU run per distinct variant."""
        def once(spec, trial, out_dir, timeout_s):
            key = (spec.digest(), trial)
            if key not in self._outcomes:
                self._outcomes[key] = run(spec, trial, out_dir, timeout_s)
            return self._outcomes[key]
        return once

    def _proxy(self, cfg: CanonicalConfig, workload: str):
        fn = self._runner
        if fn is None:
            from skill_tools.harness.engines.proxy.cli import execute_config

            fn = self._runner = execute_config
        return fn(cfg, workload=workload, size="tiny", steps=self.steps, timeout_s=self.timeout_s,
                  cache_dir=self.cache_dir)
