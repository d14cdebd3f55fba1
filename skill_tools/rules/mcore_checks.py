"""megatron-core's own CUDA-graph checks: the failures ``TransformerConfig.__post_init__`` raises while
it normalises the graph fields (read from the simulated post-init), and its checks on the normalised
settings (scopes against the model, recompute, dropout, offloading, expert-parallel overlap)."""

from __future__ import annotations

from typing import Any, Iterator

from skill_tools.config.era import GraphIntent, intent_values
from skill_tools.numbers import as_number
from skill_tools.rules.context import IMPL_ALIASES, SCOPE_ALIASES, Ctx, did_you_mean, suggest


# --------------------------------------------------------------------------------------------
# MCore normalisation failures (raised while __post_init__ reads the graph fields)
# --------------------------------------------------------------------------------------------


def _sim_errors(ctx: Ctx, rule_id: str) -> Iterator[dict[str, Any]]:
    """The failures the simulated post-init recorded for ``rule_id`` (it stops where MCore raises)."""
    for rid, data in ctx.sim.errors:
        if rid == rule_id:
            yield dict(data)


def deprecated_flag_conflict(ctx: Ctx) -> Iterator[dict[str, Any]]:
    return _sim_errors(ctx, "deprecated-flag-conflict")


def scope_full_alone(ctx: Ctx) -> Iterator[dict[str, Any]]:
    return _sim_errors(ctx, "scope-full-alone")


def scope_and_modules_both(ctx: Ctx) -> Iterator[dict[str, Any]]:
    return _sim_errors(ctx, "scope-and-modules-both")


def deprecated_scope_multiple(ctx: Ctx) -> Iterator[dict[str, Any]]:
    return _sim_errors(ctx, "deprecated-scope-multiple")


def deprecated_scope_inference_conflict(ctx: Ctx) -> Iterator[dict[str, Any]]:
    return _sim_errors(ctx, "deprecated-scope-inference-conflict")


def full_iteration_modules_not_empty(ctx: Ctx) -> Iterator[dict[str, Any]]:
    return _sim_errors(ctx, "full-iteration-modules-not-empty")


def era_key_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid == "era-key-unknown":
            key = "model." + data["key"]
            target = {k: v for k, v in intent_values(ctx.intent, ctx.era).items() if v is not None}
            yield {"key": key, "version": ctx.era.mcore_version, "keys": [key], "fix": {key: "<remove>", **target}}


def scope_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
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
        yield {"key": key, "value": value, "suggestion": did_you_mean(s), "valid": ", ".join(valid),
               "keys": [key], "fix": fix}


def impl_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
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
        yield {"value": value, "suggestion": did_you_mean(s), "valid": ", ".join(ctx.era.impls),
               "fix": {"model.cuda_graph_impl": s} if s else {}}


def inference_scope_unknown(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid == "inference-scope-unknown":
            s = suggest(data["value"], data["valid"], {"full": "block", "full_iteration_inference": "block", "layers": "layer",
                                                        "blocks": "block", "off": "none"})
            yield {"value": data["value"], "suggestion": did_you_mean(s), "valid": ", ".join(data["valid"]),
                   "fix": {"model.inference_cuda_graph_scope": s} if s else {}}


def inference_scope_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for rid, data in ctx.sim.errors:
        if rid == "inference-scope-impl":
            if data["value"] in ("layer", "block"):
                fix = {"model.cuda_graph_impl": "local", "model.inference_cuda_graph_scope": data["value"]}
            else:
                fix = {"model.inference_cuda_graph_scope": data["allowed"][0]}
            yield {**data, "allowed": ", ".join(data["allowed"]), "fix": fix}


def full_iteration_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
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


def cpu_offloading(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.graphs_on and ctx.model.get("cpu_offloading"):
        if ctx.era.name == "legacy" or ctx.sim.impl != "full_iteration":
            yield {"impl": ctx.sim.impl, "fix": {"model.cuda_graph_impl": "none"} if ctx.era.name == "legacy"
                   else {"model.cpu_offloading": False}}


def _per_layer(ctx: Ctx) -> bool:
    return ctx.graphs_on and ctx.sim.impl in ("local", "transformer_engine")


def moe_and_moe_router(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and "moe" in ctx.modules and "moe_router" in ctx.modules:
        yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "moe"])}


def moe_preprocess_needs_router(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and "moe_preprocess" in ctx.modules and "moe_router" not in ctx.modules:
        mods = [m for m in ctx.sim.modules if m != "moe_preprocess"] + ["moe_router", "moe_preprocess"]
        yield {"fix": ctx.set_modules([m for m in dict.fromkeys(mods) if m != "moe"])}


def moe_scope_needs_moe_model(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and not ctx.is_moe and not ctx.unknown("model.num_moe_experts"):
        bad = [m for m in ("moe", "moe_router") if m in ctx.modules]
        if bad:
            keep = [m for m in ctx.sim.modules if m not in ("moe", "moe_router", "moe_preprocess")] or ["attn"]
            yield {"scopes": ", ".join(bad), "fix": ctx.set_modules(keep)}


def mlp_scope_needs_dense_layers(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and ctx.is_moe and "mlp" in ctx.modules:
        freq = ctx.model.get("moe_layer_freq", 1)
        if freq == 1 or (isinstance(freq, list) and 0 not in freq):
            yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "mlp"] or ["attn"])}


def drop_pad(ctx: Ctx) -> bool:
    return ctx.model.get("moe_expert_capacity_factor") is not None and bool(ctx.model.get("moe_pad_expert_input_to_capacity"))


def moe_scope_needs_drop_pad(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _per_layer(ctx) and ctx.is_moe and not drop_pad(ctx) and "moe" in ctx.modules:
        mods = [m for m in ctx.sim.modules if m != "moe"] + ["moe_router", "moe_preprocess"]
        yield {"fix": ctx.set_modules(list(dict.fromkeys(mods)))}


def moe_pad_needs_capacity(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.model.get("moe_pad_expert_input_to_capacity") and ctx.model.get("moe_expert_capacity_factor") is None:
        yield {"fix": {"model.moe_expert_capacity_factor": 1.0}}


def moe_preprocess_dtoh_sync(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (_per_layer(ctx) and ctx.is_moe and not drop_pad(ctx) and "moe_preprocess" in ctx.modules
            and ctx.model.get("moe_token_dispatcher_type") == "alltoall"
            and (ctx.model.get("moe_expert_capacity_factor") is not None or ctx.model.get("moe_router_padding_for_fp8"))):
        yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "moe_preprocess"])}


def _recompute(ctx: Ctx) -> str | None:
    return ctx.model.get("recompute_granularity") if ctx.graphs_on else None


def full_recompute_needs_full_iteration(ctx: Ctx) -> Iterator[dict[str, Any]]:
    g = _recompute(ctx)
    if not g or g == "selective":
        return
    ok = ctx.sim.modules == ["full_iteration"] if ctx.era.name == "legacy" else ctx.sim.impl == "full_iteration"
    if not ok:
        yield {"granularity": g, "fix": {**_full_iteration_fix(ctx), "rerun_state_machine.check_for_nan_in_loss": False}}


def selective_recompute_num_layers(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """MCore's own recompute check, which a switch from full to selective recompute (the usual way to
    keep per-layer graphs) trips when the full-recompute count is left behind."""
    if ctx.model.get("recompute_granularity") == "selective" and ctx.model.get("recompute_num_layers") is not None:
        yield {"layers": ctx.model.get("recompute_num_layers"), "fix": {"model.recompute_num_layers": None}}


def _recompute_modules(ctx: Ctx) -> list[str]:
    mods = ctx.model.get("recompute_modules")
    return ["core_attn"] if mods is None else list(mods)


def moe_recompute_vs_moe_router(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (_recompute(ctx) == "selective" and ctx.sim.impl == "transformer_engine" and "moe" in _recompute_modules(ctx)
            and "moe_router" in ctx.modules):
        yield {"fix": {"model.recompute_modules": [m for m in _recompute_modules(ctx) if m != "moe"] or ["moe_act"]}}


def attention_dropout_graphed_recompute(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _recompute(ctx) != "selective" or ctx.model.get("attention_dropout", 0.1) == 0.0:
        return
    if "core_attn" in _recompute_modules(ctx) and (ctx.full_cudagraph or "attn" in ctx.modules):
        yield {"dropout": ctx.model.get("attention_dropout", 0.1), "fix": {"model.attention_dropout": 0.0},
               "assumed": ["model.attention_dropout"]}


def hidden_dropout_graphed_recompute(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _recompute(ctx) != "selective" or ctx.model.get("hidden_dropout", 0.1) == 0.0:
        return
    mods = _recompute_modules(ctx)
    bad_mlp = "mlp" in mods and (ctx.full_cudagraph or "mlp" in ctx.modules)
    bad_moe = "moe" in mods and (ctx.full_cudagraph or "moe" in ctx.modules)
    if bad_mlp or bad_moe:
        yield {"dropout": ctx.model.get("hidden_dropout", 0.1), "fix": {"model.hidden_dropout": 0.0},
               "assumed": ["model.hidden_dropout"]}


def moe_jitter_graphed_recompute(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if (_recompute(ctx) == "selective" and ctx.model.get("moe_input_jitter_eps") is not None
            and "moe" in _recompute_modules(ctx) and (ctx.full_cudagraph or "moe" in ctx.modules)):
        yield {"fix": {"model.moe_input_jitter_eps": None}}


def gtp_local_shared_experts_recompute(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """transformer_config.py l.2575-2595 @core_v0.19.0 (no GTP before 0.19)."""
    m = ctx.model
    if (ctx.era.since("0.19") and _recompute(ctx) == "selective" and ctx.sim.impl == "local"
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


def offload_local_modules(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and ctx.era.since("0.19") and ctx.sim.impl == "local" and mods - LOCAL_OFFLOAD_OK:
        yield {"modules": ", ".join(sorted(mods - LOCAL_OFFLOAD_OK)), "fix": {"model.cuda_graph_impl": "transformer_engine"}}


def offload_local_whole_layer(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and ctx.era.since("0.19") and ctx.sim.impl == "local" and not ctx.modules:
        yield {"fix": {"model.cuda_graph_impl": "transformer_engine", **ctx.set_modules(["attn"])}}


def offload_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is None or ctx.sim.impl in ("transformer_engine", "full_iteration"):
        return
    # 0.18.0 refuses local outright (transformer_config.py l.2351-2356 @core_v0.18.0); 0.19 allows a
    # partial MoE offload with it
    partial = (ctx.era.since("0.19") and ctx.sim.impl == "local" and bool(mods)
               and mods <= LOCAL_OFFLOAD_OK and "moe" not in ctx.modules)
    if not partial:
        yield {"impl": ctx.sim.impl, "fix": {"model.cuda_graph_impl": "transformer_engine"}}


def offload_moe_scope(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and "moe" in ctx.modules:
        yield {"fix": ctx.set_modules([m for m in ctx.sim.modules if m != "moe"] or ["attn"])}


def offload_warmup(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    warmup = as_number(ctx.model.get("cuda_graph_warmup_steps", 3))
    if mods is not None and warmup is not None and warmup <= 0:
        yield {"value": ctx.model.get("cuda_graph_warmup_steps"), "fix": {"model.cuda_graph_warmup_steps": 3}}


def offload_full_iteration_inflight(ctx: Ctx) -> Iterator[dict[str, Any]]:
    mods = _offload(ctx)
    if mods is not None and ctx.sim.impl == "full_iteration":
        v = ctx.model.get("fine_grained_offloading_max_inflight_offloads")
        if v is None or (as_number(v) is not None and v < 0):
            yield {"fix": {"model.fine_grained_offloading_max_inflight_offloads": 1}}


def ep_overlap_scope(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not ctx.graphs_on or not (ctx.model.get("overlap_moe_expert_parallel_comm")
                                 or ctx.cfg.get("comm_overlap.overlap_moe_expert_parallel_comm")):
        return
    bad = [m for m in ("moe", "mlp") if m in ctx.modules]
    if ctx.era.name == "legacy" and ctx.sim.impl != "transformer_engine":
        yield {"problem": f"cuda_graph_impl={ctx.sim.impl!r} (megatron-core {ctx.era.mcore_version} allows only transformer_engine here)",
               "fix": {"model.cuda_graph_impl": "transformer_engine", **ctx.set_modules(["attn", "moe_router", "moe_preprocess"])}}
    elif ctx.sim.impl == "transformer_engine" and bad:
        yield {"problem": f"scope {bad}", "fix": ctx.set_modules([m for m in ctx.sim.modules if m not in bad] or ["attn"])}
