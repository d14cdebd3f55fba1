"""What ``skill-tools bench`` (training) runs: the variants, checked before any GPU time, then run.

:class:`BenchRequest` is what the user asked for (the CLI fills it from its options);
:func:`plan` turns it into a :class:`Bench` — the engine, the era, the variant specs, what each
variant is given on the command line, and notes — refusing (InputError, exit 2) what cannot run
before any GPU time. :func:`run` measures a plan on the GPU through the engine's runner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_tools.config.era import Era, GraphIntent, resolve_era
from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError
from skill_tools.harness.engines import DEFAULT, Engine, get
from skill_tools.harness.spec import (VariantSpec, named_variant, proxy_notes, spec_from_config, spec_from_intent,
                                      validator_errors, workload_problem)


@dataclass
class BenchRequest:
    """A training bench as asked for: which engine, model, variants and measurement plan."""

    engine: str = DEFAULT
    workload: str = "dense"
    size: str = "tiny"
    impl: str | None = None
    modules: tuple[str, ...] = ()
    optimizer_graph: bool = False
    variants: tuple[str, ...] = ()
    config: Path | None = None
    layer_spec: str = "te"
    capture_stream: str = "auto"
    steps: int = 30
    warmup: int = 3
    #: Profiled steps after the measured ones (None: the engine's default).
    profile_steps: int | None = None
    trials: int = 2
    nproc: int = 1
    tp: int = 1
    pp: int = 1
    vpp_layers: int | None = None
    ep: int = 1
    microbatches: int = 1
    run_rejected: bool = False
    mcore_version: str | None = None
    megatron_lm: str | Path | None = None
    #: ``bench --config``: the plan's run shape and layout (``VariantSpec.model``) and its variants as
    #: (name, impl, modules); the engines render the user's layer shape from it.
    model: dict[str, Any] | None = None
    planned: tuple[tuple[str, str, tuple[str, ...]], ...] = ()


@dataclass
class Bench:
    """A checked plan: what will run, and how."""

    request: BenchRequest
    engine: Engine
    era: Era
    specs: list[VariantSpec]
    notes: list[str] = field(default_factory=list)
    user_cfg: CanonicalConfig | None = None

    def arguments(self) -> dict[str, list[str]]:
        """Variant name -> what the framework is given (flags or overrides); empty for the proxy."""
        if self.engine.arguments_key is None:
            return {}
        return {s.name: self.engine.arguments(s, self.era) for s in self.specs}

    def dry_run(self) -> dict[str, Any]:
        args = self.arguments()
        key = self.engine.arguments_key
        return {"engine": self.engine.name,
                "variants": [s.to_dict() | ({key: args[s.name]} if args else {}) for s in self.specs],
                "trials": self.request.trials, "notes": self.notes, "order": "interleaved by trial",
                "worker": self.engine.worker}

    def stem(self, date: str) -> str:
        r = self.request
        if r.model is not None:
            return f"{date}-training-{self.engine.name}-{r.model.get('name', 'config')}"
        layout = "".join(f"-{k}{v}" for k, v in (("tp", r.tp), ("pp", r.pp), ("vpp", r.vpp_layers), ("ep", r.ep))
                         if v not in (None, 1))
        return f"{date}-training-{self.engine.name}-{r.workload}-{r.size}{layout}"


def plan(req: BenchRequest) -> Bench:
    """The checked plan of ``req``; InputError (exit 2, no GPU time) for what cannot run."""
    for name, value in (("--steps", req.steps), ("--trials", req.trials), ("--nproc", req.nproc),
                        ("--warmup", req.warmup)):
        if value < 1:
            raise InputError(name, f"must be at least 1, got {value}")
    engine = get(req.engine)
    era = resolve_era(req.mcore_version)
    specs, user_cfg, notes = _variant_specs(req, engine)
    if req.run_rejected:
        rejected = _rejected(specs, era, engine)
        notes.extend(f"run although rejected (--run-rejected): {n}: {', '.join(r)}" for n, r in rejected.items())
    else:
        engine.refuse_illegal(specs, user_cfg, era)  # before any GPU time
    return Bench(req, engine, era, specs, notes, user_cfg)


def run(bench: Bench, *, out_dir: Path, timeout_s: float, progress: bool) -> dict[str, Any]:
    """Measure a plan on the GPU (NoGpuError, exit 2, without one)."""
    from skill_tools.harness.runner import require_gpu, run_variants

    run_one = bench.engine.runner(bench.era, megatron_lm=bench.request.megatron_lm)
    require_gpu()
    doc = run_variants(bench.specs, trials=bench.request.trials, out_dir=out_dir, timeout_s=timeout_s,
                       progress=progress, run=run_one,
                       workload=bench.engine.workload_record(bench.specs[0], bench.request.trials))
    if bench.notes:
        doc["notes"] = bench.notes
    return doc


def _variant_specs(req: BenchRequest, engine: Engine) -> tuple[list[VariantSpec], CanonicalConfig | None, list[str]]:
    common: dict[str, Any] = dict(engine=engine.name, workload=req.workload, size=req.size, steps=req.steps,
                                  warmup_steps=req.warmup, nproc=req.nproc, layer_spec=req.layer_spec,
                                  capture_stream=req.capture_stream, num_microbatches=req.microbatches,
                                  tp=req.tp, pp=req.pp, ep=req.ep, vpp_layers=req.vpp_layers)
    problem = engine.layout_problem(VariantSpec(name="layout", **common))
    if problem:
        raise InputError("--tp/--pp/--ep/--vpp-layers", problem[0], hint=problem[1])
    if engine.own_streams:
        if req.capture_stream != "auto":
            raise InputError("--capture-stream", f"the capture stream is a setting of --engine proxy; engine "
                             f"{engine.name} runs the framework's own loop, which decides its streams",
                             hint="drop --same-stream/--capture-stream, or add --engine proxy")
        # The framework decides its streams; its profiled iterations follow the measured ones.
        common.update(capture_stream="default", profile_steps=2)
    if req.profile_steps is not None:
        common["profile_steps"] = req.profile_steps
    notes: list[str] = []
    user_cfg = None
    if req.model is not None:
        common["model"] = req.model
        chosen = [VariantSpec(name=n, impl=impl, modules=tuple(mods), **common) for n, impl, mods in req.planned]
    elif req.config is not None:
        from skill_tools.config.readers import read_path

        user_cfg = read_path(req.config)
        notes = proxy_notes(user_cfg)
        rest = {k: v for k, v in common.items() if k not in ("workload", "size")}
        chosen = [spec_from_config(user_cfg, workload=req.workload, size=req.size, **rest)]
    elif req.impl is not None:
        if req.modules and req.impl != "transformer_engine":
            raise InputError("--scope", f"--scope applies to --impl transformer_engine, not {req.impl}",
                             hint="drop --scope, or use --impl transformer_engine")
        rest = {k: v for k, v in common.items() if k not in ("workload", "size", "warmup_steps")}
        chosen = [spec_from_intent(GraphIntent(impl=req.impl, modules=req.modules, warmup_steps=req.warmup),
                                   workload=req.workload, size=req.size, optimizer_graph=req.optimizer_graph, **rest)]
    else:
        chosen = [named_variant(n, **common) for n in (req.variants or engine.default_variants(req.workload))]
        for s in chosen:
            problem = workload_problem(s.impl, s.modules, s.workload)
            if problem:
                raise InputError("--variants", f"{s.name} cannot run on the {s.workload} workload: {problem.reason}",
                                 hint=problem.hint)
    eager = VariantSpec(name="eager", **common)
    return [eager, *(s for s in chosen if s.name != "eager")], user_cfg, notes


def _rejected(specs: list[VariantSpec], era: Era, engine: Engine) -> dict[str, list[str]]:
    """Variant name -> the rule ids whose errors ``--run-rejected`` overrides."""
    out = {}
    for s in specs:
        errors = validator_errors(engine.as_run(s, era), era)
        if errors:
            out[s.name] = sorted({str(e.get("rule")) for e in errors})
    return out
