"""The Quick Decision as code: pick an impl/scope for a config, explain why, say what backs it,
and prove the recommendation validates clean (each candidate goes through ``overrides.plan`` and
the catalog).

Order: shapes that change per step (packed/variable sequences, in-batch packing, Energon packing)
and CPU offloading -> no graphs; inference/decode (an inference section or scope, an inference or
RL entry point, ``--inference-*``/decode flags) -> local + block scope; full recompute -> full
iteration; hybrid Mamba -> TE ``attn,mamba`` (+ the router and preprocessing on MoE hybrids);
MoE -> drop-and-pad ``attn,moe`` / dropless ``moe_router,moe_preprocess`` (then attn); dense
finetuning -> ``mlp`` (then attn); dense pretraining -> full iteration (then TE ``attn,mlp``).
The model's kind and task come from :mod:`skill_tools.rules.workload`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.overrides import Plan, plan
from skill_tools.rules import workload
from skill_tools.rules.engine import model_view

#: What backs each recommendation: measured here, or NVIDIA's own shipped choice.
EVIDENCE = {
    "inference": "measured: 6.9x decode tokens/s at batch 1 with block scope (tiny GPT, H200, "
                 "benchmarks/results/2026-12-02-inference-h200.json); NVIDIA's inference and RL functional tests "
                 "run local graphs (Megatron-LM tests/functional_tests/test_cases/*inference*, *grpo*)",
    "full_iteration_dense": "measured: full iteration 4.34x vs TE attn+mlp 2.01x on a dense GPT through Bridge's own "
                            "pretrain (benchmarks/results/2026-12-03-training-bridge-h200-dense-tiny.json); NVIDIA's "
                            "Llama 3 8B/70B/405B pretraining presets use full iteration (Bridge perf presets @v0.3.1-v0.6.0)",
    "full_recompute": "megatron-core refuses per-layer graphs with full recompute; full iteration is the capture that allows it",
    "finetune": "NVIDIA's Llama 3 70B SFT/LoRA presets capture the MLP only (Bridge scripts/performance/configs/llama "
                "@v0.3.1-v0.5.0): packed finetuning sequences vary the attention's cu_seqlens",
    "moe_dropless": "NVIDIA's DeepSeek-V3, Qwen3 MoE and GPT-OSS presets capture attn,moe_router,moe_preprocess or "
                    "moe_router,moe_preprocess (Bridge perf presets @v0.3.1-v0.5.0); measured: 1.40x for dropless MoE TE "
                    "scopes (benchmarks/results/2026-12-03-training-bridge-h200-moe-tiny.json)",
    "moe_drop_pad": "measured: te attn,moe 1.52x on drop-and-pad MoE (benchmarks/results/2026-12-03-training-bridge-h200-"
                    "moe_droppad-tiny.json)",
    "hybrid": "NVIDIA's Nemotron-H and Nemotron 3 recipes capture mamba with attention (and the MoE router and "
              "preprocessing on Nemotron 3) (Bridge recipes/nemotronh @v0.6.0, perf presets @v0.5.0)",
    "dense_fallback": "the per-layer TE capture that validates when full iteration does not",
}


@dataclass
class Recommendation:
    impl: str
    scope: list[str]
    reason: str
    next_step: str | None
    plan: Plan
    inference_scope: str | None = None
    rejected: list[dict[str, Any]] = field(default_factory=list)
    #: What backs the choice (a measured result or NVIDIA's shipped choice) and what the config said.
    evidence: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.plan.ok

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "impl": self.impl, "scope": self.scope, "inference_scope": self.inference_scope,
                "reason": self.reason, "next_step": self.next_step, "overrides": dict(self.plan.changes),
                "era": self.plan.era.name, "mcore_version": self.plan.era.mcore_version,
                "findings": [f.to_dict() for f in self.plan.findings], "rejected": self.rejected,
                "evidence": list(self.evidence)}


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


Candidate = tuple[str, list[str], str, "str | None", "str | None", str]


def candidates(cfg: CanonicalConfig, era: Era) -> list[Candidate]:
    """(impl, scope, reason, next step, inference scope, evidence key) in order of preference."""
    model = model_view(cfg)
    blocker = _static_shape_blocker(cfg, model)
    if blocker:
        return [("none", [], f"no CUDA graphs: {blocker}", None, None, "")]
    work = workload.read(cfg, model)
    if work.task == "inference":
        return [("local", [], "inference/decode: local CUDA graphs with block scope (one graph per batch-size bucket "
                 "for the whole decoder block)", "compare greedy tokens with eager once (token-exact parity)", "block",
                 "inference"),
                ("local", [], "inference/decode: local CUDA graphs per layer (block scope does not validate here, e.g. "
                 "fp8 without the inference-optimized spec)", "compare greedy tokens with eager once", "layer",
                 "inference")]
    out: list[Candidate] = []
    if model.get("recompute_granularity") == "full":
        out.append(("full_iteration", [], "full activation recompute cannot be combined with per-layer graphs; "
                    "a full-iteration graph is the only capture that allows it", "if memory is tight, use none", None,
                    "full_recompute"))
        out.append(("none", [], "full recompute and no full-iteration graph possible", None, None, ""))
        return out
    drop_pad = model.get("moe_expert_capacity_factor") is not None and model.get("moe_pad_expert_input_to_capacity")
    if work.hybrid:
        mods = ["attn", "mamba"]
        if work.moe:
            mods = ["attn", "mamba", "moe"] if drop_pad else ["attn", "mamba", "moe_router", "moe_preprocess"]
        out.append(("transformer_engine", mods, "hybrid Mamba model: capture the Mamba mixers with attention"
                    + (" and the MoE router/preprocessing" if work.moe and not drop_pad else ""), None, None, "hybrid"))
        out.append(("transformer_engine", ["mamba"], "hybrid Mamba model: capture the Mamba mixers only", None, None,
                    "hybrid"))
    if work.moe:
        if drop_pad:
            out.append(("transformer_engine", ["attn", "moe"], "drop-and-pad MoE has static expert shapes: capture "
                        "attention and the whole MoE layer", None, None, "moe_drop_pad"))
        out.append(("transformer_engine", ["moe_router", "moe_preprocess"], "dropless MoE: expert token counts are "
                    "data-dependent, so capture only the router and preprocessing",
                    "then add attn: --scope attn,moe_router,moe_preprocess", None, "moe_dropless"))
        out.append(("transformer_engine", ["moe_router"], "dropless MoE whose preprocessing syncs with the host: "
                    "capture the router only", "then add attn", None, "moe_dropless"))
        out.append(("transformer_engine", ["attn"], "MoE layers cannot be captured here: capture attention only", None,
                    None, "dense_fallback"))
    elif work.task == "finetune":
        out.append(("transformer_engine", ["mlp"], "dense finetuning: packed sequences change the attention's shapes, "
                    "capture the MLP", "then add attn if sequences are padded: --scope attn,mlp", None, "finetune"))
        out.append(("transformer_engine", ["attn"], "the MLP cannot be captured with this recompute/dropout setting: "
                    "capture attention", None, None, "dense_fallback"))
    else:
        out.append(("full_iteration", [], "dense pretraining: capture the whole iteration (forward, backward and "
                    "optimizer step) once and replay it", "if memory is tight or the step syncs with the host, "
                    "use per-layer TE graphs: --impl transformer_engine --scope attn,mlp", None, "full_iteration_dense"))
        out.append(("transformer_engine", ["attn", "mlp"], "dense model where full iteration does not validate: capture "
                    "attention and MLP per layer", None, None, "dense_fallback"))
        out.append(("transformer_engine", ["attn"], "dense model: capture attention (small, static, launch-bound)",
                    "then try --scope attn,mlp and compare step time", None, "dense_fallback"))
        out.append(("transformer_engine", ["mlp"], "attention cannot be captured with this recompute/dropout setting: "
                    "capture the MLP", None, None, "dense_fallback"))
    out.append(("none", [], "no scope validates clean for this config", None, None, ""))
    return out


def recommend(cfg: CanonicalConfig, era: Era, env: dict[str, str] | None = None) -> Recommendation:
    rejected: list[dict[str, Any]] = []
    said = [f"{k}: {v}" for k, v in workload.read(cfg, model_view(cfg)).evidence.items()]
    for impl, scope, reason, next_step, inference, backing in candidates(cfg, era):
        p = plan(cfg, impl, scope, era, inference_scope=inference if era.has_inference_scope else None, env=env)
        if p.ok:
            evidence = ([EVIDENCE[backing]] if backing else []) + said
            return Recommendation(impl=impl, scope=scope, reason=reason, next_step=next_step, plan=p,
                                  inference_scope=inference, rejected=rejected, evidence=evidence)
        rejected.append({"impl": impl, "scope": scope, "errors": [f.rule for f in p.findings if f.severity == "error"]})
    p = plan(cfg, "none", [], era, env=env)
    return Recommendation(impl="none", scope=[], reason="no candidate validates clean", next_step=None, plan=p,
                          rejected=rejected, evidence=said)
