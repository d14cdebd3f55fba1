"""The logic of each catalog rule, by rule id.

``catalog.yaml`` holds what a rule *says* (severity, keys, message, why, fix, eras, citation);
this module holds only *when* it fires. Each check yields one context dict per finding: the
values the message template needs, optionally ``fix`` (computed overrides), ``keys`` and
``severity`` (where the front end changes it).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from skill_tools.config.era import Era, GraphIntent, intent_values
from skill_tools.config.model import CanonicalConfig, as_name_list
from skill_tools.rules.mcore_sim import Sim, augmented_modules

Check = Callable[["Ctx"], Iterable[dict[str, Any]]]
CHECKS: dict[str, Check] = {}

#: Spellings people use for scope values, and what they meant.
SCOPE_ALIASES = {
    "attention": "attn", "self_attn": "attn", "self_attention": "attn", "atten": "attn", "attn_layer": "attn",
    "ffn": "mlp", "feedforward": "mlp", "dense": "mlp", "router": "moe_router", "moe_route": "moe_router",
    "dispatch": "moe_preprocess", "moe_dispatch": "moe_preprocess", "preprocess": "moe_preprocess",
    "experts": "moe", "expert": "moe", "ssm": "mamba", "full_iter": "full_iteration", "iteration": "full_iteration",
    "full_iteration_infer": "full_iteration_inference", "layer": "full", "whole_layer": "full",
}
IMPL_ALIASES = {"te": "transformer_engine", "transformer-engine": "transformer_engine", "transformerengine": "transformer_engine",
                "mcore": "local", "native": "local", "full": "full_iteration", "full-iteration": "full_iteration",
                "off": "none", "disabled": "none", "false": "none"}


def check(rule_id: str) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS[rule_id] = fn
        return fn
    return register


@dataclass
class Ctx:
    cfg: CanonicalConfig
    era: Era
    model: dict[str, Any]  # model section, MCore defaults filled in
    sim: Sim
    intent: GraphIntent
    frontend: str  # "bridge" | "megatron_lm" | "model_only"
    env: dict[str, str] = field(default_factory=dict)
    #: Keys a Bridge config sets that Bridge discards before megatron-core reads them (engine.bridge_view).
    dropped: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        if key.startswith("model."):
            return self.model.get(key[len("model."):], default)
        return self.cfg.get(key, default)

    @property
    def graphs_on(self) -> bool:
        return not self.sim.stopped and self.sim.impl != "none"

    @property
    def modules(self) -> list[str]:
        return augmented_modules(self.sim)

    @property
    def full_cudagraph(self) -> bool:
        """MCore's notion: full-iteration capture, or an empty per-layer list (whole layer)."""
        if self.era.name == "legacy":
            return not self.sim.modules or "full_iteration" in self.sim.modules
        return self.sim.impl == "full_iteration" or not self.sim.modules

    @property
    def is_moe(self) -> bool:
        n = self.model.get("num_moe_experts")
        return n is not None and n > 1

    def modules_key(self) -> str:
        return "model." + self.era.modules_key

    def set_modules(self, modules: list[str]) -> dict[str, Any]:
        """Era-correct overrides that set the per-layer modules (Bridge ``set_cuda_graph_modules``)."""
        intent = GraphIntent(impl=self.intent.impl if self.intent.impl != "none" else "transformer_engine",
                             modules=tuple(modules), inference_scope=self.intent.inference_scope)
        vals = intent_values(intent, self.era)
        return {k: v for k, v in vals.items() if k in (self.modules_key(), "model.cuda_graph_scope")}


def suggest(value: Any, valid: Iterable[str], aliases: dict[str, str]) -> str | None:
    text = str(value).strip().lower().replace("-", "_")
    if text in aliases:
        return aliases[text]
    match = difflib.get_close_matches(text, list(valid), n=1, cutoff=0.6)
    return match[0] if match else None


def _did_you_mean(s: str | None) -> str:
    return f" (did you mean {s!r}?)" if s else ""


# --------------------------------------------------------------------------------------------
# MCore normalisation failures (raised while __post_init__ reads the graph fields)
# --------------------------------------------------------------------------------------------


def _sim_errors(rule_id: str) -> Check:
    def fn(ctx: Ctx) -> Iterator[dict[str, Any]]:
        for rid, data in ctx.sim.errors:
            if rid == rule_id:
                yield dict(data)
    return fn


for _rid in ("deprecated-flag-conflict", "scope-full-alone", "scope-and-modules-both", "deprecated-scope-multiple",
             "deprecated-scope-inference-conflict", "full-iteration-modules-not-empty"):
    CHECKS[_rid] = _sim_errors(_rid)


@check("era-key-unknown")
def _era_key_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid == "era-key-unknown":
            key = "model." + data["key"]
            target = {k: v for k, v in intent_values(ctx.intent, ctx.era).items() if v is not None}
            yield {"key": key, "version": ctx.era.mcore_version, "keys": [key], "fix": {key: "<remove>", **target}}


@check("scope-unknown")
def _scope_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid != "scope-unknown":
            continue
        key = "model." + data["key"]
        value, valid = data["value"], data["valid"]
        s = suggest(value, valid + ["full"], SCOPE_ALIASES)
        fix: dict[str, Any] = {}
        raw = ctx.cfg.get(key)
        if s is not None and isinstance(raw, (list, str)):
            items = raw if isinstance(raw, list) else str(raw).split(",")
            fixed = [] if s == "full" else [s]
            fix = {key: [x for it in items for x in ((fixed if it == value else [it]))]}
        yield {"key": key, "value": value, "suggestion": _did_you_mean(s), "valid": ", ".join(valid),
               "keys": [key], "fix": fix}


@check("impl-unknown")
def _impl_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid != "impl-unknown":
            continue
        value = data["value"]
        if ctx.era.name == "legacy" and value == "full_iteration":
            yield {"value": value, "suggestion": " (0.16–0.17 spell full-iteration capture as cuda_graph_impl='local' with cuda_graph_scope=['full_iteration'])",
                   "valid": ", ".join(ctx.era.impls),
                   "fix": {"model.cuda_graph_impl": "local", "model.cuda_graph_scope": ["full_iteration"]}}
            continue
        s = suggest(value, ctx.era.impls, IMPL_ALIASES)
        yield {"value": value, "suggestion": _did_you_mean(s), "valid": ", ".join(ctx.era.impls),
               "fix": {"model.cuda_graph_impl": s} if s else {}}


@check("inference-scope-unknown")
def _inference_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid == "inference-scope-unknown":
            s = suggest(data["value"], data["valid"], {"full": "block", "full_iteration_inference": "block", "layers": "layer",
                                                        "blocks": "block", "off": "none"})
            yield {"value": data["value"], "suggestion": _did_you_mean(s), "valid": ", ".join(data["valid"]),
                   "fix": {"model.inference_cuda_graph_scope": s} if s else {}}


@check("inference-scope-impl")
def _inference_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid == "inference-scope-impl":
            if data["value"] in ("layer", "block"):
                fix = {"model.cuda_graph_impl": "local", "model.inference_cuda_graph_scope": data["value"]}
            else:
                fix = {"model.inference_cuda_graph_scope": data["allowed"][0]}
            yield {**data, "allowed": ", ".join(data["allowed"]), "fix": fix}


@check("full-iteration-impl")
def _full_iteration_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid == "full-iteration-impl":
            yield {"impl": data["impl"], "scope": data["scope"], "fix": _full_iteration_fix(ctx)}
    if ctx.era.name == "legacy" and not ctx.sim.stopped and ctx.sim.impl == "transformer_engine" and "full_iteration" in ctx.sim.modules:
        yield {"impl": "transformer_engine", "scope": "full_iteration", "fix": _full_iteration_fix(ctx)}


def _full_iteration_fix(ctx: Ctx) -> dict[str, Any]:
    return intent_values(GraphIntent(impl="full_iteration"), ctx.era)


# --------------------------------------------------------------------------------------------
# MCore checks on the normalised settings (TransformerConfig.__post_init__)
# --------------------------------------------------------------------------------------------


@check("cpu-offloading")
def _cpu_offloading(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.graphs_on and ctx.model.get("cpu_offloading"):
        if ctx.era.name == "legacy" or ctx.sim.impl != "full_iteration":
            yield {"impl": ctx.sim.impl, "fix": {"model.cuda_graph_impl": "none"} if ctx.era.name == "legacy"
                   else {"model.cpu_offloading": False}}


def _per_layer(ctx: Ctx) -> bool:
    return ctx.graphs_on and ctx.sim.impl in ("local", "transformer_engine")


@check("moe-and-moe-router")
def _moe_and_router(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and "moe" in ctx.modules and "moe_router" in ctx.modules:
        yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "moe"])}


@check("moe-preprocess-needs-router")
def _preprocess_router(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and "moe_preprocess" in ctx.modules and "moe_router" not in ctx.modules:
        mods = [m for m in ctx.sim.modules if m != "moe_preprocess"] + ["moe_router", "moe_preprocess"]
        yield {"fix": ctx.set_modules([m for m in dict.fromkeys(mods) if m != "moe"])}


@check("moe-scope-needs-moe-model")
def _moe_scope_dense(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and not ctx.is_moe:
        bad = [m for m in ("moe", "moe_router") if m in ctx.modules]
        if bad:
            keep = [m for m in ctx.sim.modules if m not in ("moe", "moe_router", "moe_preprocess")] or ["attn"]
            yield {"scopes": ", ".join(bad), "fix": ctx.set_modules(keep)}


@check("mlp-scope-needs-dense-layers")
def _mlp_no_dense(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and ctx.is_moe and "mlp" in ctx.modules:
        freq = ctx.model.get("moe_layer_freq", 1)
        if freq == 1 or (isinstance(freq, list) and 0 not in freq):
            yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "mlp"] or ["attn"])}


def _drop_pad(ctx: Ctx) -> bool:
    return ctx.model.get("moe_expert_capacity_factor") is not None and bool(ctx.model.get("moe_pad_expert_input_to_capacity"))


@check("moe-scope-needs-drop-pad")
def _moe_drop_pad(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and ctx.is_moe and not _drop_pad(ctx) and "moe" in ctx.modules:
        mods = [m for m in ctx.sim.modules if m != "moe"] + ["moe_router", "moe_preprocess"]
        yield {"fix": ctx.set_modules(list(dict.fromkeys(mods)))}


@check("moe-pad-needs-capacity")
def _pad_capacity(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.model.get("moe_pad_expert_input_to_capacity") and ctx.model.get("moe_expert_capacity_factor") is None:
        yield {"fix": {"model.moe_expert_capacity_factor": 1.0}}


@check("moe-preprocess-dtoh-sync")
def _preprocess_sync(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (_per_layer(ctx) and ctx.is_moe and not _drop_pad(ctx) and "moe_preprocess" in ctx.modules
            and ctx.model.get("moe_token_dispatcher_type") == "alltoall"
            and (ctx.model.get("moe_expert_capacity_factor") is not None or ctx.model.get("moe_router_padding_for_fp8"))):
        yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "moe_preprocess"])}


def _recompute(ctx: Ctx) -> str | None:
    return ctx.model.get("recompute_granularity") if ctx.graphs_on else None


@check("full-recompute-needs-full-iteration")
def _full_recompute(ctx: Ctx) -> Iterator[dict[str, Any]]:
    g = _recompute(ctx)
    if not g or g == "selective":
        return
    ok = ctx.sim.modules == ["full_iteration"] if ctx.era.name == "legacy" else ctx.sim.impl == "full_iteration"
    if not ok:
        yield {"granularity": g, "fix": {**_full_iteration_fix(ctx), "rerun_state_machine.check_for_nan_in_loss": False}}


def _recompute_modules(ctx: Ctx) -> list[str]:
    mods = ctx.model.get("recompute_modules")
    return ["core_attn"] if mods is None else list(mods)


@check("moe-recompute-vs-moe-router")
def _moe_recompute(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (_recompute(ctx) == "selective" and ctx.sim.impl == "transformer_engine" and "moe" in _recompute_modules(ctx)
            and "moe_router" in ctx.modules):
        yield {"fix": {"model.recompute_modules": [m for m in _recompute_modules(ctx) if m != "moe"] or ["moe_act"]}}


@check("attention-dropout-graphed-recompute")
def _attn_dropout(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _recompute(ctx) != "selective" or ctx.model.get("attention_dropout", 0.1) == 0.0:
        return
    if "core_attn" in _recompute_modules(ctx) and (ctx.full_cudagraph or "attn" in ctx.modules):
        yield {"dropout": ctx.model.get("attention_dropout", 0.1), "fix": {"model.attention_dropout": 0.0}}


@check("hidden-dropout-graphed-recompute")
def _hidden_dropout(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _recompute(ctx) != "selective" or ctx.model.get("hidden_dropout", 0.1) == 0.0:
        return
    mods = _recompute_modules(ctx)
    bad_mlp = "mlp" in mods and (ctx.full_cudagraph or "mlp" in ctx.modules)
    bad_moe = "moe" in mods and (ctx.full_cudagraph or "moe" in ctx.modules)
    if bad_mlp or bad_moe:
        yield {"dropout": ctx.model.get("hidden_dropout", 0.1), "fix": {"model.hidden_dropout": 0.0}}


@check("moe-jitter-graphed-recompute")
def _jitter(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (_recompute(ctx) == "selective" and ctx.model.get("moe_input_jitter_eps") is not None
            and "moe" in _recompute_modules(ctx) and (ctx.full_cudagraph or "moe" in ctx.modules)):
        yield {"fix": {"model.moe_input_jitter_eps": None}}


@check("gtp-local-shared-experts-recompute")
def _gtp_shared_experts(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """transformer_config.py l.2575-2595 @core_v0.19.0 (no GTP before 0.19)."""
    m = ctx.model
    if (ctx.era.version_tuple >= (0, 19, 0) and _recompute(ctx) == "selective" and ctx.sim.impl == "local"
            and (m.get("gtp_weight_remat_size") or 1) > 1 and (m.get("fp8") is not None or m.get("fp4") is not None)
            and m.get("moe_shared_expert_intermediate_size") is not None and not m.get("moe_shared_expert_overlap")
            and (ctx.full_cudagraph or "moe" in ctx.modules or "moe_router" in ctx.modules)
            and "shared_experts" in _recompute_modules(ctx)):
        yield {"fix": {"model.recompute_modules": [x for x in _recompute_modules(ctx) if x != "shared_experts"] or ["core_attn"]}}


LOCAL_OFFLOAD_OK = {"expert_fc1", "moe_act", "fused_group_mlp"}


def _offload(ctx: Ctx) -> set[str] | None:
    if ctx.era.name != "current" or not ctx.graphs_on or not ctx.model.get("fine_grained_activation_offloading"):
        return None
    return set(ctx.model.get("offload_modules") or [])


@check("offload-local-modules")
def _offload_local_modules(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and ctx.era.version_tuple >= (0, 19, 0) and ctx.sim.impl == "local" and mods - LOCAL_OFFLOAD_OK:
        yield {"modules": ", ".join(sorted(mods - LOCAL_OFFLOAD_OK)), "fix": {"model.cuda_graph_impl": "transformer_engine"}}


@check("offload-local-whole-layer")
def _offload_local_whole(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and ctx.era.version_tuple >= (0, 19, 0) and ctx.sim.impl == "local" and not ctx.modules:
        yield {"fix": {"model.cuda_graph_impl": "transformer_engine", **ctx.set_modules(["attn"])}}


@check("offload-impl")
def _offload_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is None or ctx.sim.impl in ("transformer_engine", "full_iteration"):
        return
    # 0.18.0 refuses local outright (transformer_config.py l.2351-2356 @core_v0.18.0); 0.19 allows a
    # partial MoE offload with it
    partial = (ctx.era.version_tuple >= (0, 19, 0) and ctx.sim.impl == "local" and bool(mods)
               and mods <= LOCAL_OFFLOAD_OK and "moe" not in ctx.modules)
    if not partial:
        yield {"impl": ctx.sim.impl, "fix": {"model.cuda_graph_impl": "transformer_engine"}}


@check("offload-moe-scope")
def _offload_moe(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and "moe" in ctx.modules:
        yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "moe"] or ["attn"])}


@check("offload-warmup")
def _offload_warmup(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and not (ctx.model.get("cuda_graph_warmup_steps", 3) > 0):
        yield {"value": ctx.model.get("cuda_graph_warmup_steps"), "fix": {"model.cuda_graph_warmup_steps": 3}}


@check("offload-full-iteration-inflight")
def _offload_inflight(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and ctx.sim.impl == "full_iteration":
        v = ctx.model.get("fine_grained_offloading_max_inflight_offloads")
        if v is None or v < 0:
            yield {"fix": {"model.fine_grained_offloading_max_inflight_offloads": 1}}


@check("ep-overlap-scope")
def _ep_overlap(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.graphs_on or not (ctx.model.get("overlap_moe_expert_parallel_comm")
                                 or ctx.cfg.get("comm_overlap.overlap_moe_expert_parallel_comm")):
        return
    bad = [m for m in ("moe", "mlp") if m in ctx.modules]
    if ctx.era.name == "legacy" and ctx.sim.impl != "transformer_engine":
        yield {"problem": f"cuda_graph_impl={ctx.sim.impl!r} (megatron-core {ctx.era.mcore_version} allows only transformer_engine here)",
               "fix": {"model.cuda_graph_impl": "transformer_engine", **ctx.set_modules(["attn", "moe_router", "moe_preprocess"])}}
    elif ctx.sim.impl == "transformer_engine" and bad:
        yield {"problem": f"scope {bad}", "fix": ctx.set_modules([m for m in ctx.sim.modules if m not in bad] or ["attn"])}


# --------------------------------------------------------------------------------------------
# Megatron-LM arguments.py / Bridge ConfigContainer / runtime checks
# --------------------------------------------------------------------------------------------


def _te_rng(ctx: Ctx) -> bool:
    return bool(ctx.cfg.get("rng.te_rng_tracker") or ctx.cfg.get("model.use_te_rng_tracker"))


@check("te-rng-tracker-required")
def _te_rng_tracker(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.enabled and not _te_rng(ctx):
        if ctx.frontend == "model_only" and ctx.intent.impl == "local" and ctx.model.get("inference_rng_tracker"):
            # CudaGraphManager also accepts MCore's inference RNG tracker
            # (megatron/core/transformer/cuda_graphs.py@core_v0.19.0, "RNG tracker does not support cudagraphs!")
            return
        sev = None
        if ctx.frontend == "megatron_lm":
            # arguments.py turns it on (with a warning) whenever TE is the impl or transformer_impl
            sev = "info" if "transformer_engine" in (ctx.intent.impl, ctx.model.get("transformer_impl")) else None
        yield {"impl": ctx.intent.impl, "severity": sev,
               "fix": {"model.use_te_rng_tracker": True, "rng.te_rng_tracker": True}}


@check("nan-check-full-iteration")
def _nan_check(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.intent.full_iteration or ctx.sim.stopped:
        return
    loss = ctx.cfg.get("rerun_state_machine.check_for_nan_in_loss")
    if loss is False:
        return
    fix = {"rerun_state_machine.check_for_nan_in_loss": False, "ddp.check_for_nan_in_grad": False}
    if loss is None and ctx.frontend == "model_only":
        yield {"state": "not set (defaults to True)", "severity": "warning", "fix": fix}
    else:
        yield {"state": "True" if loss else "not set (defaults to True)", "fix": fix}


@check("nan-grad-check-full-iteration")
def _nan_grad(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.full_iteration and not ctx.sim.stopped and ctx.cfg.get("ddp.check_for_nan_in_grad") is True:
        yield {"fix": {"ddp.check_for_nan_in_grad": False}}


@check("bridge-scope-without-impl")
def _bridge_scope_dropped(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Bridge's ``validate_cuda_graph_configuration`` clears scope/modules when the impl is "none"
    (megatron-bridge 0.6.2 utils/cuda_graph.py), before megatron-core could read or convert them."""
    if ctx.frontend != "bridge" or not ctx.dropped:
        return
    names = [n for k in sorted(ctx.dropped) for n in as_name_list(ctx.dropped[k])]
    if not names:
        return
    if "full_iteration" in names:
        intent = GraphIntent(impl="full_iteration")
    else:
        intent = GraphIntent(impl="transformer_engine", modules=tuple(n for n in names if n != "full_iteration_inference"))
    fix = {k: v for k, v in intent_values(intent, ctx.era).items()
           if k.startswith("model.cuda_graph") and v is not None}
    yield {"keys": ["model.cuda_graph_impl", *sorted(ctx.dropped)], "names": names, "fix": fix}


@check("bridge-local-scoped")
def _bridge_local(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Bridge's ``validate_cuda_graph_configuration`` (megatron-bridge 0.6.2 utils/cuda_graph.py), on
    the raw ``cuda_graph_impl``: it runs before megatron-core's post-init, so it speaks first."""
    if ctx.frontend != "bridge" or ctx.cfg.get("model.cuda_graph_impl") != "local":
        return
    names = as_name_list(ctx.cfg.get("model.cuda_graph_modules")) + as_name_list(ctx.cfg.get("model.cuda_graph_scope"))
    mods = [n for n in dict.fromkeys(names) if n not in ("full_iteration", "full_iteration_inference", "full")]
    inference = set(as_name_list(ctx.cfg.get("model.inference_cuda_graph_scope"))) & {"layer", "block"}
    if "full_iteration" in names or (not mods and inference):
        return
    yield {"scopes": f" with scopes {mods}" if mods else "",
           "fix": {"model.cuda_graph_impl": "transformer_engine", **ctx.set_modules(mods or [])}}


def _expandable(ctx: Ctx) -> bool:
    return "expandable_segments:true" in ctx.env.get("PYTORCH_CUDA_ALLOC_CONF", "").replace(" ", "").lower()


@check("expandable-segments-nccl-register")
def _expandable_segments(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.intent.enabled or ctx.sim.stopped or not _expandable(ctx) or ctx.env.get("NCCL_GRAPH_REGISTER") == "0":
        return
    fix = {"env.NCCL_GRAPH_REGISTER": "0"}
    if ctx.intent.impl == "transformer_engine":
        yield {"impl": ctx.intent.impl, "fix": fix}
    elif ctx.intent.impl in ("local", "full_iteration") and ctx.era.version_tuple < (0, 19, 0):
        yield {"impl": ctx.intent.impl, "severity": "warning", "fix": fix,
               "extra": " (megatron-core < 0.19 asserts this for the local impl on GPUs before Blackwell)"}


@check("fsdp-v2-cuda-graphs")
def _fsdp_v2(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Bridge config.py l.1484-1485, l.1072-1075 and l.1181-1188 @067f987."""
    cfg = ctx.cfg
    fsdp = cfg.get("ddp.use_megatron_fsdp") or cfg.get("dist.use_megatron_fsdp")
    if ctx.frontend != "bridge" or not fsdp or cfg.get("ddp.megatron_fsdp_version") != 2:
        return
    graphs = (not ctx.sim.stopped and ctx.sim.impl != "none") or bool(cfg.get("ddp.megatron_fsdp_cuda_graph_mode"))
    if graphs or cfg.get("optimizer.optimizer_cuda_graph"):
        yield {"fix": {"ddp.megatron_fsdp_version": 1}}


@check("gtp-graphs-node-priority")
def _gtp_node_priority(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """arguments.py l.1474-1504 @core_v0.19.0: on Blackwell and later, GTP with any graph impl
    asserts the environment variable (the GPU is not known here: a warning)."""
    if ctx.frontend != "megatron_lm" or ctx.era.version_tuple < (0, 19, 0) or not ctx.intent.enabled or ctx.sim.stopped:
        return
    m = ctx.model
    gtp = any(isinstance(m.get(k), (int, float)) and m.get(k) > 1  # a non-number is argparse's refusal, not ours
              for k in ("gtp_weight_remat_size", "tensor_parallel_num_weight_shards",
                        "expert_tensor_parallel_num_weight_shards"))
    if gtp and ctx.env.get("CUDA_GRAPHS_USE_NODE_PRIORITY") != "1":
        yield {"fix": {"env.CUDA_GRAPHS_USE_NODE_PRIORITY": "1"}}


def _packing(ctx: Ctx) -> tuple[bool, bool, bool]:
    offline = bool(ctx.cfg.get("dataset.enable_offline_packing")) or any(
        k.startswith("dataset.offline_packing_specs.") for k in ctx.cfg.values) and ctx.cfg.get("dataset.enable_offline_packing") is not False
    pad_max = ctx.cfg.get("dataset.pad_to_max_length") is True or ctx.cfg.get("dataset.dataset_kwargs.pad_to_max_length") is True
    pad_cu = ctx.cfg.get("dataset.offline_packing_specs.pad_cu_seqlens") is True or ctx.cfg.get("dataset.packed_sequence_specs.pad_cu_seqlens") is True
    return offline, pad_max, pad_cu


def _packed_specs(ctx: Ctx) -> bool:
    return ctx.cfg.get("dataset.packed_sequence") is True or any(
        k.startswith(("dataset.packed_sequence_specs.", "dataset.offline_packing_specs.")) and ctx.cfg.get(k) is not None
        for k in ctx.cfg.values if k.endswith(("packed_sequence_size", "packed_train_data_path", "pad_cu_seqlens")))


@check("packed-seq-pad-to-max-length")
def _packed_pad_max(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.sim.stopped or not ctx.intent.enabled:
        return
    offline, pad_max, _ = _packing(ctx)
    training_graphs = ctx.intent.full_iteration or ctx.intent.impl == "transformer_engine"
    if (offline or _packed_specs(ctx)) and training_graphs and not pad_max:
        yield {"fix": {"dataset.pad_to_max_length": True}}


@check("packed-seq-pad-cu-seqlens")
def _packed_cu(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.sim.stopped or not ctx.intent.enabled:
        return
    offline, _, pad_cu = _packing(ctx)
    captures_attn = ctx.intent.full_iteration or (
        ctx.intent.impl == "transformer_engine" and (not ctx.intent.modules or "attn" in ctx.intent.modules))
    if (offline or _packed_specs(ctx)) and captures_attn and not pad_cu:
        key = "dataset.offline_packing_specs.pad_cu_seqlens" if offline else "dataset.packed_sequence_specs.pad_cu_seqlens"
        yield {"fix": {key: True, "dataset.pad_to_max_length": True}}


@check("energon-packing")
def _energon(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.enabled and ctx.cfg.get("dataset.packing_buffer_size") is not None:
        yield {"fix": {"model.cuda_graph_impl": "none"}}


@check("variable-seq-lengths")
def _variable_seq(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.intent.enabled or ctx.sim.stopped:
        return
    if ctx.model.get("variable_seq_lengths") or ctx.cfg.get("dataset.enable_in_batch_packing"):
        yield {"fix": {"model.cuda_graph_impl": "none"}}


@check("thd-packed-te-scoped")
def _thd(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.impl == "transformer_engine" and not ctx.sim.stopped and ctx.model.get("qkv_format") == "thd":
        _, _, pad_cu = _packing(ctx)
        if not pad_cu:
            yield {"fix": {"dataset.packed_sequence_specs.pad_cu_seqlens": True, "dataset.pad_to_max_length": True}}


def _delay_wgrad(ctx: Ctx) -> bool:
    return bool(ctx.model.get("delay_wgrad_compute") or ctx.cfg.get("comm_overlap.delay_wgrad_compute"))


def _wgrad_in_graph(ctx: Ctx) -> bool:
    mods = ctx.intent.modules
    return "attn" in mods or ("moe_router" in mods and ctx.model.get("moe_shared_expert_intermediate_size") is not None
                              and not ctx.model.get("moe_shared_expert_overlap"))


def _overlap_grad_reduce(ctx: Ctx) -> bool:
    return bool(ctx.cfg.get("ddp.overlap_grad_reduce") or ctx.cfg.get("comm_overlap.overlap_grad_reduce"))


def _delay_wgrad_checked(ctx: Ctx) -> bool:
    """Who asserts the delayed-wgrad graph rules: Megatron-LM's arguments.py from 0.17.0, and only
    with overlap_grad_reduce (l.1507-1531 @core_v0.17.0, l.1822-1846 @core_v0.19.0); Bridge's
    CommOverlapConfig whenever delay_wgrad_compute is set (comm_overlap.py l.520-557 @067f987)."""
    if ctx.frontend == "megatron_lm":
        return ctx.era.version_tuple >= (0, 17, 0) and _overlap_grad_reduce(ctx)
    return ctx.era.name == "current"


@check("delay-wgrad-te-version")
def _delay_te(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not (ctx.intent.enabled and _delay_wgrad(ctx) and _wgrad_in_graph(ctx)) or ctx.sim.stopped or not _delay_wgrad_checked(ctx):
        return
    te = ctx.era.te_version
    from skill_tools.config.era import parse_version
    if te is None:
        yield {"te": "unknown (Transformer Engine not installed here)", "severity": "info", "fix": {}}
    elif parse_version(te, "--te-version") < (2, 12, 0):
        yield {"te": te, "fix": {}}


@check("delay-wgrad-grad-accum-fusion")
def _delay_gaf(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (ctx.intent.enabled and not ctx.sim.stopped and _delay_wgrad(ctx) and _wgrad_in_graph(ctx) and _delay_wgrad_checked(ctx)
            and not ctx.model.get("gradient_accumulation_fusion", ctx.frontend == "megatron_lm")):
        yield {"fix": {"model.gradient_accumulation_fusion": True}}


@check("delay-wgrad-attn-bias")
def _delay_bias(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (ctx.intent.enabled and not ctx.sim.stopped and _delay_wgrad(ctx) and "attn" in ctx.intent.modules
            and _delay_wgrad_checked(ctx) and (ctx.model.get("add_bias_linear", True) or ctx.model.get("add_qkv_bias", False))):
        yield {"fix": {"model.add_bias_linear": False, "model.add_qkv_bias": False}}


@check("param-gather-optimizer-step-full-iteration")
def _pg_opt(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.full_iteration and not ctx.sim.stopped and ctx.cfg.get("optimizer.overlap_param_gather_with_optimizer_step"):
        yield {"fix": {"optimizer.overlap_param_gather_with_optimizer_step": False}}


@check("fsdp-full-iteration-param-sync")
def _fsdp(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (ctx.intent.full_iteration and not ctx.sim.stopped and ctx.cfg.get("ddp.use_megatron_fsdp")
            and ctx.cfg.get("ddp.fsdp_all_gather_in_start_param_sync", True) is not False):
        yield {"fix": {"ddp.megatron_fsdp_cuda_graph_mode": True, "ddp.fsdp_all_gather_in_start_param_sync": False}}


# --------------------------------------------------------------------------------------------
# migrations, deprecations, advice
# --------------------------------------------------------------------------------------------


@check("deprecated-enable-cuda-graph")
def _deprecated_bool(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for key, impl in (("model.enable_cuda_graph", "local"), ("model.external_cuda_graph", "transformer_engine")):
        if ctx.cfg.get(key):
            explicit = ctx.cfg.get("model.cuda_graph_impl") not in (None, "none")
            yield {"key": key, "impl": impl, "keys": [key],
                   "fix": {key: False} if explicit else {key: False, "model.cuda_graph_impl": impl}}


@check("deprecated-cuda-graph-scope")
def _deprecated_scope(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.era.name != "current" or ctx.sim.stopped or ctx.cfg.fmt == "run_script":
        return  # run_script.py's --cuda_graph_scope goes through Bridge's set_cuda_graph_modules
    raw = ctx.cfg.get("model.cuda_graph_scope")
    raw_mods = ctx.cfg.get("model.cuda_graph_modules")
    if raw not in (None, "full", []) or any(n in ("full_iteration", "full_iteration_inference")
                                            for n in (raw_mods if isinstance(raw_mods, list) else [raw_mods])):
        target = intent_values(ctx.intent, ctx.era)
        yield {"value": raw if raw is not None else raw_mods, "version": ctx.era.mcore_version, "fix": target}


@check("full-iteration-scope-enables")
def _fi_enables(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if any(rid == "full-iteration-scope-enables" for rid, _ in ctx.sim.notes):
        yield {"fix": {"model.cuda_graph_impl": "full_iteration", "model.cuda_graph_modules": [], "model.cuda_graph_scope": None}}


@check("full-iteration-scope-ignored")
def _fi_ignored(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if any(rid == "full-iteration-scope-ignored" for rid, _ in ctx.sim.notes):
        yield {"fix": {"model.cuda_graph_impl": "local", "model.cuda_graph_scope": ["full_iteration"]}}


@check("full-iteration-inference-migration")
def _fii(ctx: Ctx) -> Iterator[dict[str, Any]]:
    raw = ctx.cfg.get("model." + ("cuda_graph_scope" if ctx.era.name == "legacy" else "cuda_graph_modules"))
    names = raw if isinstance(raw, list) else [raw]
    names += ctx.cfg.get("model.cuda_graph_scope") if isinstance(ctx.cfg.get("model.cuda_graph_scope"), list) else []
    if "full_iteration_inference" not in names or ctx.sim.stopped:
        return
    if ctx.era.name == "current":
        yield {"version": ctx.era.mcore_version, "fix": {"model.cuda_graph_impl": "local", "model.cuda_graph_modules": [],
                                                           "model.cuda_graph_scope": None, "model.inference_cuda_graph_scope": "block"}}


@check("inference-block-fp8")
def _block_fp8(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.sim.stopped or ctx.sim.inference_scope != "block" or not ctx.model.get("fp8"):
        return
    if ctx.model.get("transformer_impl") != "inference_optimized" or ctx.model.get("fp8_recipe") != "mxfp8":
        yield {"fix": {"model.transformer_impl": "inference_optimized", "model.fp8_recipe": "mxfp8"}}


@check("inference-moe-ep-padding")
def _inf_moe(ctx: Ctx) -> Iterator[dict[str, Any]]:
    # 0.16 has the option only in Megatron-LM's arguments.py (l.1159, l.2717 @core_v0.16.1); its
    # TransformerConfig has no such field (added in 0.17), so the fix exists only for Megatron-LM
    if ctx.era.name == "legacy" and ctx.frontend != "megatron_lm" and ctx.era.version_tuple < (0, 17, 0):
        return
    if (ctx.sim.impl == "local" and not ctx.sim.stopped and ctx.is_moe and (ctx.model.get("expert_model_parallel_size") or 1) > 1
            and not ctx.model.get("moe_pad_experts_for_cuda_graph_inference")
            and not (ctx.era.version_tuple >= (0, 18, 0) and ctx.model.get("transformer_impl") == "inference_optimized")):
        yield {"severity": "error" if ctx.era.name == "legacy" and ctx.frontend == "megatron_lm" else None,
               "fix": {"model.moe_pad_experts_for_cuda_graph_inference": True}}


@check("inference-num-cuda-graphs")
def _inf_num(ctx: Ctx) -> Iterator[dict[str, Any]]:
    n = ctx.cfg.get("inference.num_cuda_graphs")
    if ctx.era.version_tuple < (0, 17, 0):
        return  # the assert is new in 0.17 (arguments.py l.1014 @core_v0.17.0; absent @core_v0.16.1)
    if ctx.sim.impl == "local" and isinstance(n, int) and not isinstance(n, bool) and not (n > 0 or n == -1):
        yield {"value": n, "fix": {"inference.num_cuda_graphs": -1}}


@check("memory-pp-per-layer")
def _mem_pp(ctx: Ctx) -> Iterator[dict[str, Any]]:
    pp = ctx.model.get("pipeline_model_parallel_size") or 1
    if ctx.graphs_on and ctx.sim.impl in ("transformer_engine", "local") and pp > 1 and not ctx.intent.full_iteration:
        yield {"pp": pp, "fix": {}}


@check("memory-full-iteration")
def _mem_fi(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.full_iteration and not ctx.sim.stopped:
        yield {"fix": {}}


@check("warmup-steps")
def _warmup(ctx: Ctx) -> Iterator[dict[str, Any]]:
    w = ctx.cfg.get("model.cuda_graph_warmup_steps")
    if not ctx.intent.enabled or w is None or isinstance(w, bool) or not isinstance(w, (int, float)):
        return
    if w < 1 and not ctx.model.get("fine_grained_activation_offloading"):
        yield {"value": w, "problem": "below 1: the first captured step runs without warm-up (lazy inits, NCCL setup)",
               "fix": {"model.cuda_graph_warmup_steps": 3}}
    elif w > 10:
        yield {"value": w, "problem": "above 10: every step until capture runs eagerly, so short runs never replay graphs",
               "fix": {"model.cuda_graph_warmup_steps": 3}}


@check("rl-graphs-without-impl")
def _rl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for key in ("inference.rl_persist_cuda_graphs", "inference.rl_training_cuda_graphs"):
        if ctx.cfg.get(key) and not ctx.intent.enabled:
            yield {"key": key, "keys": [key, "model.cuda_graph_impl"], "fix": {key: False}}


def _optimizer_graph_on(ctx: Ctx) -> bool:
    value = ctx.cfg.get("optimizer.optimizer_cuda_graph")
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "1", "yes"))


@check("optimizer-graph-version")
def _optimizer_graph_version(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _optimizer_graph_on(ctx) and ctx.era.version_tuple < (0, 17, 0):
        yield {"version": ctx.era.mcore_version, "fix": {"optimizer.optimizer_cuda_graph": "<remove>"}}


@check("optimizer-graph-parity-baseline")
def _optimizer_graph_parity(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _optimizer_graph_on(ctx) and ctx.era.version_tuple >= (0, 17, 0):
        yield {"fix": {}}
