"""Checks for failures that Megatron's training loops hit at capture time, found by running the
loops themselves (engine megatron-lm on an H200), where TransformerConfig has no assert.

Both are full-iteration failures: the captured region is the whole forward/backward step, so
anything in it that talks to the host fails the capture, including code outside megatron.core
(Megatron-LM's get_batch) and MoE token dispatch that MCore only checks for per-layer scopes.
"""

from __future__ import annotations

from typing import Any, Iterator

from skill_tools.config.era import GraphIntent, intent_values
from skill_tools.rules.context import Ctx
from skill_tools.rules.mcore_checks import drop_pad


def _full_iteration(ctx: Ctx) -> bool:
    return not ctx.sim.stopped and ctx.intent.full_iteration


def _scoped(ctx: Ctx, modules: tuple[str, ...]) -> dict[str, Any]:
    """The per-layer TE graphs that run where the full iteration cannot, spelled for the era."""
    return intent_values(GraphIntent(impl="transformer_engine", modules=modules), ctx.era)


def _hybridep_static_budget(ctx: Ctx) -> bool:
    """HybridEP with a per-rank capacity (0.18+) pre-sizes dispatch and skips the host sync
    (token_dispatcher.py l.1158-1171 @core_v0.19.0, l.1104-1117 @core_v0.18.0); Megatron-LM's guide
    names it as the way to full-iteration graphs on MoE (cuda_graph.md l.170-182 @core_v0.19.0)."""
    return (ctx.era.name != "legacy" and ctx.model.get("moe_token_dispatcher_type") == "flex"
            and ctx.model.get("moe_flex_dispatcher_backend") == "hybridep"
            and ctx.model.get("moe_expert_rank_capacity_factor") is not None)


def full_iteration_dropless_moe(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if not (_full_iteration(ctx) and ctx.is_moe):
        return
    if drop_pad(ctx):
        return  # drop-and-pad: static capacity counts, no host copy
    if _hybridep_static_budget(ctx):
        return  # upstream's documented (experimental) full-iteration MoE path; not measured here
    dispatcher = ctx.model.get("moe_token_dispatcher_type") or "allgather"
    deciding = ("model.moe_token_dispatcher_type", "model.moe_expert_capacity_factor",
                "model.moe_pad_expert_input_to_capacity", "model.moe_expert_rank_capacity_factor")
    # overrides on a recipe that leave the dispatch settings to it: warn, the recipe may make it static
    unseen = any(ctx.unknown(k) for k in deciding)
    yield {"dispatcher": dispatcher + (" (or what the recipe sets)" if unseen else ""),
           "severity": "warning" if unseen else None, "fix": _scoped(ctx, ("attn", "moe_router", "moe_preprocess"))}


def mlm_full_iteration_batch_broadcast(ctx: Ctx) -> Iterator[dict[str, Any]]:
    if ctx.frontend != "megatron_lm" or not _full_iteration(ctx):
        return
    if not ctx.era.since("0.18"):
        where = f"in Megatron-LM {ctx.era.mcore_version} (core_v0.16-0.17, every run)"
    else:
        flags = ["sft", "hybrid_context_parallel"] + (["dataloader_inter_document_masking"] if ctx.era.since("0.19")
                                                      else [])
        on = [f"--{f.replace('_', '-')}" for f in flags if ctx.model.get(f)]
        if not on:
            return
        where = f"with {' '.join(on)} (Megatron-LM {ctx.era.mcore_version} broadcasts cu_seqlens then)"
    modules = ("attn", "moe_router", "moe_preprocess") if ctx.is_moe else ("attn", "mlp")
    yield {"where": where, "fix": _scoped(ctx, modules)}
