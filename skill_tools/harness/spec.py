"""Variant specs: what one measured run is, and how any graph config maps onto a workload.

Pure data (no torch): the CLI builds and checks specs on a machine without a GPU; an engine turns
a spec into its framework's arguments (or, for the proxy, receives it as JSON). A config from a
Bridge YAML, the canonical config model or the command-line flags is read through
:func:`skill_tools.config.era.read_intent`, so either era's spelling maps onto the same run. What a
workload cannot run comes back with the reason; an illegal config is refused with the validator's
findings before any GPU time is spent.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, NamedTuple

from skill_tools.config.era import GraphIntent, Era, intent_values, read_intent, resolve_era
from skill_tools.config.model import CanonicalConfig
from skill_tools.errors import InputError

WORKLOADS = ("dense", "moe", "moe_droppad")
IMPLS = ("none", "full_iteration", "local", "transformer_engine")
#: Per-layer TE scopes the workloads can run (MCore ``CudaGraphModule`` names).
TE_SCOPES = ("attn", "mlp", "moe", "moe_router", "moe_preprocess")


@dataclass(frozen=True)
class ProxyShape:
    """Static shapes of one built-in workload size."""

    num_layers: int
    hidden_size: int
    num_attention_heads: int
    seq_length: int
    vocab_size: int = 8192
    micro_batch_size: int = 2
    num_experts: int = 8
    moe_topk: int = 2

    @property
    def ffn_hidden_size(self) -> int:
        return 4 * self.hidden_size

    @property
    def moe_ffn_hidden_size(self) -> int:
        return 2 * self.hidden_size


#: From launch-bound (tiny: eager leaves the GPU idle most of the step) to compute-bound.
SIZES: dict[str, ProxyShape] = {
    "tiny": ProxyShape(num_layers=4, hidden_size=512, num_attention_heads=8, seq_length=256),
    "small": ProxyShape(num_layers=4, hidden_size=1024, num_attention_heads=16, seq_length=1024),
    "medium": ProxyShape(num_layers=8, hidden_size=2048, num_attention_heads=16, seq_length=1024),
    "large": ProxyShape(num_layers=8, hidden_size=2048, num_attention_heads=16, seq_length=2048),
}


@dataclass(frozen=True)
class VariantSpec:
    """One measured run: engine, workload, shape and graph settings, plus the measurement plan."""

    name: str
    #: A name of :data:`skill_tools.harness.engines.REGISTRY`.
    engine: str = "proxy"
    workload: str = "dense"
    size: str = "tiny"
    impl: str = "none"
    modules: tuple[str, ...] = ()
    optimizer_graph: bool = False
    #: Capturable Adam (what ``optimizer_cuda_graph`` selects) with the optimizer step left eager:
    #: the control that separates the capturable kernel's numerics from graph replay.
    capturable_optimizer: bool = False
    #: Python's garbage collector off between ``train.manual_gc_interval`` steps (``--manual-gc
    #: --manual-gc-interval 100``): the host-side setting that measures what GC costs a graphed step.
    manual_gc: bool = False
    layer_spec: str = "te"  # "te" | "local"
    warmup_steps: int = 3
    settle_steps: int = 2
    steps: int = 20
    profile_steps: int = 5
    seed: int = 1234
    tp: int = 1
    #: Pipeline stages and layers per virtual stage (engine megatron-lm; the proxy runs one stage).
    pp: int = 1
    vpp_layers: int | None = None
    ep: int = 1
    nproc: int = 1
    num_microbatches: int = 1
    lr: float = 1e-4
    te_rng_tracker: bool = True
    #: "default": steps run on the default stream (as Megatron's loop does); "shared": everything
    #: runs on MCore's shared capture stream (a workaround for torch builds without
    #: ``torch.autograd.graph.set_override_stale_capture_stream``: with "default" those builds fail
    #: full-iteration and TE capture, with "shared" every impl captured on the H200, see
    #: benchmarks/results/2026-12-02-training-h200-dense-tiny{,-same-stream}.json); "auto": the
    #: worker picks "default" where torch has that function and "shared" where it does not, and
    #: records its choice.
    capture_stream: str = "default"
    extra_config: dict[str, Any] = field(default_factory=dict)
    #: ``bench --config``: the plan's run shape and layout ({"shape": ModelShape fields, "layout":
    #: Layout fields, "source": the config}); the engines render the user's layer shape from it
    #: instead of the built-in ``size``.
    model: dict[str, Any] | None = None

    @property
    def shape(self) -> ProxyShape:
        return SIZES[self.size]

    @property
    def micro_batch_size(self) -> int:
        if self.model is not None:
            return int(self.model["shape"]["micro_batch_size"])
        return self.shape.micro_batch_size

    @property
    def num_layers(self) -> int:
        """Layers the run builds: the user's plan's, else the built-in size's."""
        return int(self.model["shape"]["num_layers"]) if self.model is not None else self.shape.num_layers

    def model_shape(self):
        """The user's (fitted) model shape and layout (:mod:`skill_tools.config.shape`), or None."""
        if self.model is None:
            return None
        from skill_tools.config.shape import Layout, ModelShape

        return ModelShape(**self.model["shape"]), Layout(**self.model["layout"])

    @property
    def slug(self) -> str:
        """The variant's name as a file name (``te:attn+mlp`` -> ``te_attn-mlp``)."""
        return self.name.replace(":", "_").replace("+", "-")

    @property
    def graphed(self) -> bool:
        return self.impl != "none" or self.optimizer_graph

    @property
    def optimizer_capturable(self) -> bool:
        """Whether MCore builds Adam with ``capturable=True`` (the optimizer graph needs it)."""
        return self.optimizer_graph or self.capturable_optimizer

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["modules"] = list(self.modules)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "VariantSpec":
        d = dict(data)
        d["modules"] = tuple(d.get("modules") or ())
        return cls(**d)

    def to_record(self) -> str:
        """The spec as the proxy worker receives it across the process boundary (versioned)."""
        from skill_tools.harness.records import SPEC_SCHEMA_VERSION

        return json.dumps({"schema_version": SPEC_SCHEMA_VERSION, **self.to_dict()}, sort_keys=True)

    @classmethod
    def from_record(cls, text: str) -> "VariantSpec":
        """The spec from :meth:`to_record`; a record of a newer schema is refused, never half-read."""
        from skill_tools.harness.records import SPEC_SCHEMA_VERSION, RecordVersionError

        data = json.loads(text)
        version = int(data.pop("schema_version", 0))
        if version > SPEC_SCHEMA_VERSION:
            raise RecordVersionError(f"variant spec schema_version {version} is newer than this worker reads "
                                     f"({SPEC_SCHEMA_VERSION})")
        return cls.from_dict(data)

    def digest(self) -> str:
        """Stable hash of everything that changes the measurement (cache key)."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def intent(self) -> GraphIntent:
        return GraphIntent(impl=self.impl, modules=self.modules, warmup_steps=self.warmup_steps)


# --------------------------------------------------------------------------------------------
# Named variants
# --------------------------------------------------------------------------------------------

class Named(NamedTuple):
    impl: str
    modules: tuple[str, ...] = ()
    optimizer_graph: bool = False
    capturable_optimizer: bool = False
    manual_gc: bool = False


#: Named variants. "eager" is the baseline of every A/B. The "+capturable-adam" controls run
#: MCore's Adam in capturable mode (as ``optimizer_cuda_graph=True`` does) without graphing its
#: step, so a loss difference of the optimizer graph can be split into kernel and replay.
NAMED: dict[str, Named] = {
    "eager": Named("none"),
    "eager+capturable-adam": Named("none", capturable_optimizer=True),
    "full_iteration": Named("full_iteration"),
    "full_iteration+capturable-adam": Named("full_iteration", capturable_optimizer=True),
    "full_iteration+optimizer": Named("full_iteration", optimizer_graph=True),
    #: the step with the most graphed, plus manual GC: the host-side remedy measured (engines with a loop)
    "full_iteration+optimizer+manual-gc": Named("full_iteration", optimizer_graph=True, manual_gc=True),
    # engine bridge: the same graph spelled local + ["full_iteration"] (Bridge's perf scripts, 0.16-0.17 recipes)
    "full_iteration:local-spelling": Named("full_iteration"),
    "local": Named("local"),
    #: TE graphs of whole transformer layers (``cuda_graph_impl="transformer_engine"``, no modules).
    "te:layer": Named("transformer_engine"),
    "te:attn": Named("transformer_engine", ("attn",)),
    "te:mlp": Named("transformer_engine", ("mlp",)),
    "te:attn+mlp": Named("transformer_engine", ("attn", "mlp")),
    "te:moe_router+moe_preprocess": Named("transformer_engine", ("moe_router", "moe_preprocess")),
    "te:attn+moe_router+moe_preprocess": Named("transformer_engine", ("attn", "moe_router", "moe_preprocess")),
    "te:moe": Named("transformer_engine", ("moe",)),
}

DEFAULT_VARIANTS: dict[str, tuple[str, ...]] = {
    "dense": ("eager", "full_iteration", "full_iteration+optimizer", "local", "te:attn+mlp"),
    "moe": ("eager", "te:attn+moe_router+moe_preprocess", "te:moe_router+moe_preprocess"),
    "moe_droppad": ("eager", "te:moe", "te:attn+moe_router+moe_preprocess"),
}


def variant_name(impl: str, modules: tuple[str, ...], optimizer_graph: bool) -> str:
    for name, n in NAMED.items():
        if (n.impl, n.modules, n.optimizer_graph, n.capturable_optimizer) == (
                impl, tuple(modules), optimizer_graph, False):
            return name
    base = "te:" + "+".join(modules) if impl == "transformer_engine" else impl
    return base + ("+optimizer" if optimizer_graph else "")


def named_variant(name: str, **common: Any) -> VariantSpec:
    if name not in NAMED:
        raise InputError("--variants", f"unknown variant {name!r}", hint="one of " + ", ".join(NAMED))
    n = NAMED[name]
    return VariantSpec(name=name, impl=n.impl, modules=n.modules, optimizer_graph=n.optimizer_graph,
                       capturable_optimizer=n.capturable_optimizer, manual_gc=n.manual_gc, **common)


# --------------------------------------------------------------------------------------------
# Mapping a config (any era, any source) onto a workload
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unrunnable:
    """A config a workload cannot run, and why."""

    reason: str
    hint: str = ""


def workload_problem(impl: str, modules: tuple[str, ...], workload: str) -> Unrunnable | None:
    """Why (impl, modules) cannot run on this built-in workload, or None."""
    if workload not in WORKLOADS:
        return Unrunnable(f"unknown workload {workload!r}", "one of " + ", ".join(WORKLOADS))
    if impl not in IMPLS:
        return Unrunnable(f"cuda_graph_impl {impl!r} is not a training graph implementation",
                          "one of " + ", ".join(IMPLS))
    if impl != "transformer_engine":
        if impl == "local" and modules and set(modules) != {"attn", "mlp"}:
            return Unrunnable("per-layer local graphs run over whole layers only",
                              "drop cuda_graph_modules for impl=local, or use transformer_engine scopes")
        return None
    if "mamba" in modules:
        return Unrunnable("the built-in workloads are GPT models without Mamba layers", "drop 'mamba' from the scope")
    unknown = [m for m in modules if m not in TE_SCOPES]
    if unknown:
        return Unrunnable(f"unknown scope(s) {unknown}", "valid: " + ", ".join(TE_SCOPES))
    moe_scopes = {"moe", "moe_router", "moe_preprocess"} & set(modules)
    if workload == "dense" and moe_scopes:
        return Unrunnable(f"scope(s) {sorted(moe_scopes)} need MoE layers; the dense workload has none",
                          "use --workload moe (or moe_droppad for the 'moe' scope)")
    if workload == "moe" and "moe" in modules:
        return Unrunnable("the 'moe' scope captures the token dispatch, which needs static shapes: "
                          "MCore allows it only for drop-and-pad MoE (TransformerConfig asserts)",
                          "use --workload moe_droppad, or scope moe_router,moe_preprocess for dropless MoE")
    if workload.startswith("moe") and "mlp" in modules:
        return Unrunnable("'mlp' graphs dense MLP layers; every layer of the MoE workloads is a MoE layer",
                          "use moe_router,moe_preprocess (dropless) or moe (drop-and-pad)")
    return None


def spec_from_intent(intent: GraphIntent, *, workload: str, size: str, name: str | None = None,
                     optimizer_graph: bool = False, **common: Any) -> VariantSpec:
    """The variant of an era-neutral intent on a built-in workload; InputError when it cannot run."""
    modules = tuple(intent.modules)
    if intent.impl == "local" and set(modules) == {"attn", "mlp"}:
        modules = ()
    problem = workload_problem(intent.impl, modules, workload)
    if problem:
        raise InputError("workload", f"cannot run on the {workload} workload: {problem.reason}", hint=problem.hint)
    if size not in SIZES:
        raise InputError("--size", f"unknown size {size!r}", hint="one of " + ", ".join(SIZES))
    if intent.warmup_steps is not None:
        common.setdefault("warmup_steps", max(1, int(intent.warmup_steps)))
    if intent.impl == "none":
        modules = ()
    return VariantSpec(name=name or variant_name(intent.impl, modules, optimizer_graph), workload=workload,
                       size=size, impl=intent.impl, modules=modules, optimizer_graph=optimizer_graph, **common)


def spec_from_config(cfg: CanonicalConfig, *, workload: str = "dense", size: str = "tiny",
                     **common: Any) -> VariantSpec:
    """Map a CanonicalConfig (from a Bridge YAML, Python recipe, flags...) onto a built-in workload."""
    intent = read_intent(cfg)
    opt_graph = bool(cfg.get("optimizer.optimizer_cuda_graph") or cfg.get("model.optimizer_cuda_graph"))
    return spec_from_intent(intent, workload=workload, size=size, optimizer_graph=opt_graph, **common)


def proxy_notes(cfg: CanonicalConfig) -> list[str]:
    """Settings of a real config that the built-in workload does not reproduce (said, never dropped)."""
    notes = []
    for key, what in (("model.fp8", "fp8"), ("model.fp4", "fp4"),
                      ("model.pipeline_model_parallel_size", "pipeline parallelism"),
                      ("model.context_parallel_size", "context parallelism")):
        value = cfg.get(key)
        if value not in (None, False, 0, 1, "", "none"):
            notes.append(f"{key}={value!r}: the built-in workload runs bf16 without {what}; graph coverage is unchanged")
    return notes


def config_of(spec: VariantSpec, era: Era | None = None) -> CanonicalConfig:
    """The era-correct CanonicalConfig a variant stands for (what the validator checks)."""
    era = era or resolve_era(None)
    cfg = CanonicalConfig(source=f"variant {spec.name}")
    for key, value in intent_values(spec.intent(), era).items():
        if value is not None:
            cfg.set(key, value)
    cfg.set("rng.te_rng_tracker", spec.te_rng_tracker)
    cfg.set("model.tensor_model_parallel_size", spec.tp)
    cfg.set("model.expert_model_parallel_size", spec.ep)
    cfg.set("optimizer.optimizer_cuda_graph", spec.optimizer_graph)
    cfg.set("optimizer.clip_grad", 0.0)
    cfg.set("ddp.use_distributed_optimizer", False)
    cfg.set("ddp.overlap_grad_reduce", False)
    cfg.set("rerun_state_machine.check_for_nan_in_loss", False)
    cfg.set("train.micro_batch_size", spec.micro_batch_size)
    cfg.set("model.seq_length", spec.shape.seq_length)
    if spec.workload.startswith("moe"):
        cfg.set("model.num_moe_experts", spec.shape.num_experts)
        cfg.set("model.moe_router_topk", spec.shape.moe_topk)
        cfg.set("model.moe_token_dispatcher_type", "alltoall")
        if spec.workload == "moe_droppad":
            cfg.set("model.moe_expert_capacity_factor", 1.0)
            cfg.set("model.moe_pad_expert_input_to_capacity", True)
    return cfg


def validator_errors(cfg: CanonicalConfig, era: Era | None = None) -> list[dict[str, Any]] | None:
    """Error-severity findings of the rule catalog for ``cfg``."""
    from skill_tools.rules.engine import check

    era = era or resolve_era(None)
    return [f.to_dict() for f in check(cfg, era) if str(getattr(f, "severity", "")) == "error"]


def refuse_illegal(specs: list[VariantSpec], user_cfg: CanonicalConfig | None = None,
                   era: Era | None = None,
                   config: Callable[[VariantSpec], CanonicalConfig] | None = None) -> None:
    """Raise InputError (exit 2, no GPU time) when the validator finds an error. ``config`` gives
    the config a variant runs as (default :func:`config_of`; an engine passes what it will really run)."""
    checks: list[tuple[str, CanonicalConfig]] = []
    if user_cfg is not None:
        checks.append((user_cfg.source, user_cfg))
    checks.extend((f"variant {s.name}", (config or (lambda v: config_of(v, era)))(s)) for s in specs)
    for where, cfg in checks:
        errors = validator_errors(cfg, era)
        if errors and cfg is not user_cfg:
            # A variant runs megatron-core or Megatron-LM: Bridge-only restrictions do not apply to it.
            errors = [e for e in errors if not str(e.get("rule", "")).startswith("bridge-")]
        if errors:
            lines = "; ".join(f"[{e.get('rule')}] {e.get('message')}" for e in errors)
            raise InputError(where, f"refused before any GPU time: {lines}",
                             hint="fix the config (skill-tools validate shows the fixes)")


def with_plan(spec: VariantSpec, **plan: Any) -> VariantSpec:
    return replace(spec, **plan)
