"""Migrations between the megatron-core eras, deprecated spellings and advice."""

from __future__ import annotations

from typing import Any, Iterator

from skill_tools.config.era import intent_values
from skill_tools.rules.context import Ctx


# --------------------------------------------------------------------------------------------
# migrations, deprecations, advice
# --------------------------------------------------------------------------------------------


def deprecated_enable_cuda_graph(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for key, impl in (("model.enable_cuda_graph", "local"), ("model.external_cuda_graph", "transformer_engine")):
        if ctx.cfg.get(key):
            explicit = ctx.cfg.get("model.cuda_graph_impl") not in (None, "none")
            yield {"key": key, "impl": impl, "keys": [key],
                   "fix": {key: False} if explicit else {key: False, "model.cuda_graph_impl": impl}}


def deprecated_cuda_graph_scope(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.era.name != "current" or ctx.sim.stopped or ctx.cfg.fmt == "run_script":
        return  # run_script.py's --cuda_graph_scope goes through Bridge's set_cuda_graph_modules
    raw = ctx.cfg.get("model.cuda_graph_scope")
    raw_mods = ctx.cfg.get("model.cuda_graph_modules")
    if raw not in (None, "full", []) or any(n in ("full_iteration", "full_iteration_inference")
                                            for n in (raw_mods if isinstance(raw_mods, list) else [raw_mods])):
        target = intent_values(ctx.intent, ctx.era)
        yield {"value": raw if raw is not None else raw_mods, "version": ctx.era.mcore_version, "fix": target}


def full_iteration_scope_enables(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if any(rid == "full-iteration-scope-enables" for rid, _ in ctx.sim.notes):
        yield {"fix": {"model.cuda_graph_impl": "full_iteration", "model.cuda_graph_modules": [], "model.cuda_graph_scope": None}}


def full_iteration_scope_ignored(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if any(rid == "full-iteration-scope-ignored" for rid, _ in ctx.sim.notes):
        yield {"fix": {"model.cuda_graph_impl": "local", "model.cuda_graph_scope": ["full_iteration"]}}


def full_iteration_inference_migration(ctx: Ctx) -> Iterator[dict[str, Any]]:
    raw = ctx.cfg.get("model." + ("cuda_graph_scope" if ctx.era.name == "legacy" else "cuda_graph_modules"))
    names = raw if isinstance(raw, list) else [raw]
    names += ctx.cfg.get("model.cuda_graph_scope") if isinstance(ctx.cfg.get("model.cuda_graph_scope"), list) else []
    if "full_iteration_inference" not in names or ctx.sim.stopped:
        return
    if ctx.era.name == "current":
        yield {"version": ctx.era.mcore_version, "fix": {"model.cuda_graph_impl": "local", "model.cuda_graph_modules": [],
                                                           "model.cuda_graph_scope": None, "model.inference_cuda_graph_scope": "block"}}


def inference_block_fp8(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.sim.stopped or ctx.sim.inference_scope != "block" or not ctx.model.get("fp8"):
        return
    if ctx.model.get("transformer_impl") != "inference_optimized" or ctx.model.get("fp8_recipe") != "mxfp8":
        yield {"fix": {"model.transformer_impl": "inference_optimized", "model.fp8_recipe": "mxfp8"}}


def inference_moe_ep_padding(ctx: Ctx) -> Iterator[dict[str, Any]]:
    # 0.16 has the option only in Megatron-LM's arguments.py (l.1159, l.2717 @core_v0.16.1); its
    # TransformerConfig has no such field (added in 0.17), so the fix exists only for Megatron-LM
    if ctx.era.name == "legacy" and ctx.frontend != "megatron_lm" and not ctx.era.since("0.17"):
        return
    if (ctx.sim.impl == "local" and not ctx.sim.stopped and ctx.is_moe and (ctx.model.get("expert_model_parallel_size") or 1) > 1
            and not ctx.model.get("moe_pad_experts_for_cuda_graph_inference")
            and not (ctx.era.since("0.18") and ctx.model.get("transformer_impl") == "inference_optimized")):
        yield {"severity": "error" if ctx.era.name == "legacy" and ctx.frontend == "megatron_lm" else None,
               "fix": {"model.moe_pad_experts_for_cuda_graph_inference": True}}


def inference_num_cuda_graphs(ctx: Ctx) -> Iterator[dict[str, Any]]:
    n = ctx.cfg.get("inference.num_cuda_graphs")
    if not ctx.era.since("0.17"):
        return  # the assert is new in 0.17 (arguments.py l.1014 @core_v0.17.0; absent @core_v0.16.1)
    if ctx.sim.impl == "local" and isinstance(n, int) and not isinstance(n, bool) and not (n > 0 or n == -1):
        yield {"value": n, "fix": {"inference.num_cuda_graphs": -1}}


def inference_num_cuda_graphs_none(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """InferenceConfig.num_cuda_graphs defaults to None, and None builds an empty bucket list
    (config.py l.216, batch_dimensions_utils.py l.515-516 @core_v0.19.0): no decode graph is
    captured. Megatron-LM's launcher passes its own default (16), so only a config that writes
    None itself is read here."""
    if ctx.era.since("0.17") and ctx.sim.impl == "local" and not ctx.sim.stopped \
            and ctx.cfg.has("inference.num_cuda_graphs") and ctx.cfg.get("inference.num_cuda_graphs") is None:
        yield {"fix": {"inference.num_cuda_graphs": -1}}


def inference_pp_microbatch_graphs(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """arguments.py l.1147-1152 @core_v0.16.0, l.1774-1779 @core_v0.19.0: any impl but none is refused."""
    value = ctx.cfg.get("model.inference_batch_times_seqlen_threshold")
    impl = ctx.cfg.get("model.cuda_graph_impl")
    if isinstance(value, int) and not isinstance(value, bool) and value > -1 and impl not in (None, "none"):
        yield {"value": value, "impl": impl, "fix": {"model.inference_batch_times_seqlen_threshold": -1}}


def memory_pp_per_layer(ctx: Ctx) -> Iterator[dict[str, Any]]:
    pp = ctx.model.get("pipeline_model_parallel_size") or 1
    if ctx.graphs_on and ctx.sim.impl in ("transformer_engine", "local") and pp > 1 and not ctx.intent.full_iteration:
        yield {"pp": pp, "fix": {}}


def memory_full_iteration(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.intent.full_iteration and not ctx.sim.stopped:
        yield {"fix": {}}


def warmup_steps(ctx: Ctx) -> Iterator[dict[str, Any]]:
    w = ctx.cfg.get("model.cuda_graph_warmup_steps")
    if not ctx.intent.enabled or w is None or isinstance(w, bool) or not isinstance(w, (int, float)):
        return
    if w < 1 and not ctx.model.get("fine_grained_activation_offloading"):
        yield {"value": w, "problem": "below 1: the first captured step runs without warm-up (lazy inits, NCCL setup)",
               "fix": {"model.cuda_graph_warmup_steps": 3}}
    elif w > 10:
        yield {"value": w, "problem": "above 10: every step until capture runs eagerly, so short runs never replay graphs",
               "fix": {"model.cuda_graph_warmup_steps": 3}}


def rl_graphs_without_impl(ctx: Ctx) -> Iterator[dict[str, Any]]:
    for key in ("inference.rl_persist_cuda_graphs", "inference.rl_training_cuda_graphs"):
        if ctx.cfg.get(key) and not ctx.intent.enabled:
            yield {"key": key, "keys": [key, "model.cuda_graph_impl"], "fix": {key: False}}


def rl_offload_needs_persisted_graphs(ctx: Ctx) -> Iterator[dict[str, Any]]:
    """Megatron-LM's RL arguments assert it since 0.17 (arguments.py, ``validate_args``)."""
    mode = ctx.cfg.get("inference.rl_kv_cache_management_mode")
    if ctx.era.since("0.17") and isinstance(mode, str) and mode.strip().lower() == "offload" and \
            not ctx.cfg.get("inference.rl_persist_cuda_graphs"):
        yield {"version": ctx.era.mcore_version, "keys": ["inference.rl_kv_cache_management_mode",
                                                          "inference.rl_persist_cuda_graphs"],
               "fix": {"inference.rl_persist_cuda_graphs": True}}


def _optimizer_graph_on(ctx: Ctx) -> bool:
    value = ctx.cfg.get("optimizer.optimizer_cuda_graph")
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "1", "yes"))


def optimizer_graph_version(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _optimizer_graph_on(ctx) and not ctx.era.since("0.17"):
        yield {"version": ctx.era.mcore_version, "fix": {"optimizer.optimizer_cuda_graph": "<remove>"}}


def optimizer_graph_parity_baseline(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if _optimizer_graph_on(ctx) and ctx.era.since("0.17"):
        yield {"fix": {}}
