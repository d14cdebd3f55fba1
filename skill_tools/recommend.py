"""The Quick Decision as code: pick an impl/scope for a config, explain why, and prove the
recommendation validates clean (each candidate goes through ``overrides.plan`` and the catalog).

Order (from the skill's Quick Decision): shapes that change per step (packed/variable
sequences, in-batch packing, Energon packing) and CPU offloading -> no graphs; inference ->
local + block scope; full recompute -> full iteration; dropless MoE -> moe_router,
moe_preprocess (then attn); drop-and-pad MoE -> attn, moe; dense -> attn (then mlp).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.overrides import Plan, plan
from skill_tools.rules.engine import model_view


@dataclass
class Recommendation:
    impl: str
    scope: list[str]
    reason: str
    next_step: str | None
    plan: Plan
    inference_scope: str | None = None
    rejected: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.plan.ok

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "impl": self.impl, "scope": self.scope, "inference_scope": self.inference_scope,
                "reason": self.reason, "next_step": self.next_step, "overrides": dict(self.plan.changes),
                "era": self.plan.era.name, "mcore_version": self.plan.era.mcore_version,
                "findings": [f.to_dict() for f in self.plan.findings], "rejected": self.rejected}


def _static_shape_blocker(cfg: CanonicalConfig, model: dict[str, Any]) -> str | None:
    if model.get("cpu_offloading"):
        return "CPU activation offloading syncs host and device inside the step; CUDA graphs cannot capture it"
    if cfg.get("dataset.packing_buffer_size") is not None:
        return "Energon native sequence packing changes batch shapes every step (Bridge rejects graphs with it)"
    if model.get("variable_seq_lengths") or cfg.get("dataset.enable_in_batch_packing"):
        return "variable sequence lengths change tensor shapes every step; graphs replay static shapes only"
    packed = cfg.get("dataset.packed_sequence") or any(k.startswith(("dataset.packed_sequence_specs.", "dataset.offline_packing_specs."))
                                                       for k in cfg.values) or model.get("qkv_format") == "thd"
    padded = cfg.get("dataset.pad_to_max_length") is True and (
        cfg.get("dataset.packed_sequence_specs.pad_cu_seqlens") is True or cfg.get("dataset.offline_packing_specs.pad_cu_seqlens") is True)
    if packed and not padded:
        return ("packed sequences have a different cu_seqlens length every batch; without pad_to_max_length and "
                "pad_cu_seqlens the shapes are not static")
    return None


def _is_inference(cfg: CanonicalConfig, model: dict[str, Any]) -> bool:
    return bool(cfg.section("inference")) or model.get("inference_cuda_graph_scope") not in (None, "none")


def candidates(cfg: CanonicalConfig, era: Era) -> list[tuple[str, list[str], str, str | None, str | None]]:
    """(impl, scope, reason, next step, inference scope) in order of preference."""
    model = model_view(cfg)
    blocker = _static_shape_blocker(cfg, model)
    if blocker:
        return [("none", [], f"no CUDA graphs: {blocker}", None, None)]
    if _is_inference(cfg, model):
        return [("local", [], "inference/decode: local CUDA graphs with block scope (one graph per batch-size bucket "
                 "for the whole decoder block; measured here: 6.9x decode tokens/s at batch 1, tiny GPT on an H200, "
                 "benchmarks/results/2026-12-02-inference-h200.json)",
                 "compare greedy tokens with eager once (token-exact parity)", "block")]
    out: list[tuple[str, list[str], str, str | None, str | None]] = []
    if model.get("recompute_granularity") == "full":
        out.append(("full_iteration", [], "full activation recompute cannot be combined with per-layer graphs; "
                    "a full-iteration graph is the only capture that allows it", "if memory is tight, use none", None))
        out.append(("none", [], "full recompute and no full-iteration graph possible", None, None))
        return out
    n = model.get("num_moe_experts")
    if n is not None and n > 1:
        drop_pad = model.get("moe_expert_capacity_factor") is not None and model.get("moe_pad_expert_input_to_capacity")
        if drop_pad:
            out.append(("transformer_engine", ["attn", "moe"], "drop-and-pad MoE has static expert shapes: capture "
                        "attention and the whole MoE layer", None, None))
        out.append(("transformer_engine", ["moe_router", "moe_preprocess"], "dropless MoE: expert token counts are "
                    "data-dependent, so capture only the router and preprocessing", "then add attn: --scope attn,moe_router,moe_preprocess", None))
        out.append(("transformer_engine", ["moe_router"], "dropless MoE whose preprocessing syncs with the host: "
                    "capture the router only", "then add attn", None))
        out.append(("transformer_engine", ["attn"], "MoE layers cannot be captured here: capture attention only", None, None))
    else:
        out.append(("transformer_engine", ["attn"], "dense model: start with attention (small, static, launch-bound)",
                    "then try --scope attn,mlp and compare step time", None))
        out.append(("transformer_engine", ["mlp"], "attention cannot be captured with this recompute/dropout setting: "
                    "capture the MLP", None, None))
    out.append(("none", [], "no scope validates clean for this config", None, None))
    return out


def recommend(cfg: CanonicalConfig, era: Era, env: dict[str, str] | None = None) -> Recommendation:
    rejected: list[dict[str, Any]] = []
    for impl, scope, reason, next_step, inference in candidates(cfg, era):
        p = plan(cfg, impl, scope, era, inference_scope=inference if era.has_inference_scope else None, env=env)
        if p.ok:
            return Recommendation(impl=impl, scope=scope, reason=reason, next_step=next_step, plan=p,
                                  inference_scope=inference, rejected=rejected)
        rejected.append({"impl": impl, "scope": scope, "errors": [f.rule for f in p.findings if f.severity == "error"]})
    p = plan(cfg, "none", [], era, env=env)
    return Recommendation(impl="none", scope=[], reason="no candidate validates clean", next_step=None, plan=p,
                          rejected=rejected)
