"""Catalog-versus-MCore differential: generated model sections, the catalog's MCore-level
verdict next to the real ``TransformerConfig``'s. Used by the test (seeded, small) and by
``benchmarks/bench_differential.py`` (full count). Imports megatron-core (via the oracle)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.era import Era
from skill_tools.config.model import CanonicalConfig
from skill_tools.rules import oracle
from skill_tools.rules.engine import check

SCOPE_NAMES = ["attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba", "full_iteration",
               "full_iteration_inference", "full", "attention", "router"]


def generate(rng: random.Random, era: Era) -> dict[str, Any]:
    """A model section that exercises the CUDA-graph checks and passes MCore's other checks.
    Besides the graph keys it draws what MCore rewrites before its graph asserts
    (``moe_layer_recompute``, negative ``moe_expert_capacity_factor``) and, on 0.19+, GTP with
    fp4 and shared experts (the GTP + local graphs + shared_experts recompute assert)."""
    r = rng.random
    if r() < 0.15:
        return _focused(rng, era)
    m: dict[str, Any] = {}
    if r() < 0.9:
        m["cuda_graph_impl"] = rng.choice(["none", "local", "transformer_engine", "full_iteration", "te"])
    key = "cuda_graph_scope" if era.name == "legacy" or r() < 0.4 else "cuda_graph_modules"
    if r() < 0.85:
        m[key] = rng.sample(SCOPE_NAMES, rng.choice([0, 1, 1, 2, 2, 3]))
        if r() < 0.1:
            m[key] = ",".join(m[key])
    if key == "cuda_graph_scope" and r() < 0.08:
        m["cuda_graph_modules"] = rng.sample(SCOPE_NAMES[:3], 1)
    if r() < 0.25:
        m["inference_cuda_graph_scope"] = rng.choice(["none", "layer", "block", "blk"])
    if r() < 0.08:
        m["enable_cuda_graph"] = True
    if r() < 0.08:
        m["external_cuda_graph"] = True
    if r() < 0.5:
        m["num_moe_experts"] = rng.choice([None, 1, 4, 8])
        m["moe_layer_freq"] = rng.choice([1, 2, [1, 0], [1, 1]])
        m["moe_token_dispatcher_type"] = rng.choice(["allgather", "alltoall"])
        if r() < 0.5:
            # a negative factor means "no capacity" to MCore (it becomes None)
            m["moe_expert_capacity_factor"] = rng.choice([1.0, 1.0, -1.0])
        m["moe_pad_expert_input_to_capacity"] = "moe_expert_capacity_factor" in m and r() < 0.6
        if m["num_moe_experts"] and m["num_moe_experts"] > 1 and r() < 0.3:
            m["moe_shared_expert_intermediate_size"] = 64
        if r() < 0.2:
            m["moe_input_jitter_eps"] = 0.01
        if m["num_moe_experts"] and m["num_moe_experts"] > 1 and r() < 0.15:
            m.update(overlap_moe_expert_parallel_comm=True, expert_model_parallel_size=2, bf16=True,
                     moe_token_dispatcher_type="alltoall")
    if r() < 0.4 and not m.get("overlap_moe_expert_parallel_comm"):
        g = rng.choice(["full", "selective"])
        m["recompute_granularity"] = g
        if g == "full":
            m.update(recompute_method="uniform", recompute_num_layers=1)
        else:
            pool = ["core_attn", "mlp", "moe", "layernorm"]
            m["recompute_modules"] = rng.sample(pool, rng.choice([1, 2]))
            if m.get("moe_shared_expert_intermediate_size") and r() < 0.5:
                m["recompute_modules"].append("shared_experts")
    elif r() < 0.1 and not m.get("overlap_moe_expert_parallel_comm"):
        m["cpu_offloading"] = True
    if m.get("num_moe_experts") and r() < 0.25 and m.get("recompute_granularity") != "full" and not m.get("cpu_offloading") \
            and not m.get("overlap_moe_expert_parallel_comm"):
        # deprecated: MCore turns it into selective recompute of 'moe' before its graph checks
        m["moe_layer_recompute"] = True
    if m.get("moe_shared_expert_intermediate_size") and r() < 0.2 \
            and "shared_experts" not in (m.get("recompute_modules") or []) \
            and m.get("moe_token_dispatcher_type") == "alltoall" and not m.get("overlap_moe_expert_parallel_comm"):
        # MCore refuses it without alltoall/flex and with EP overlap (neither a graph rule)
        m["moe_shared_expert_overlap"] = True  # MCore refuses it with shared_experts recompute (not a graph rule)
    if era.since("0.19") and m.get("moe_shared_expert_intermediate_size") and r() < 0.5:
        # GTP (0.19+) with fp4 (fp8 MoE needs Transformer Engine, absent where the oracle runs)
        m["gtp_weight_remat_size"] = rng.choice([1, 2, 2])
        if r() < 0.7:
            m["fp4"] = "e2m1"
    m["attention_dropout"] = rng.choice([0.0, 0.1])
    m["hidden_dropout"] = rng.choice([0.0, 0.1])
    if era.name == "current" and r() < 0.2 and not m.get("cpu_offloading"):
        m["fine_grained_activation_offloading"] = True
        m["offload_modules"] = rng.sample(["core_attn", "expert_fc1", "moe_act", "qkv_linear"], rng.choice([1, 2]))
        if "moe" in (m.get("recompute_modules") or []):
            m["recompute_modules"] = ["core_attn"]
        m.pop("moe_layer_recompute", None)  # it adds 'moe' recompute, which offloading refuses
        m["cuda_graph_warmup_steps"] = rng.choice([0, 3])
        if r() < 0.5:
            m["fine_grained_offloading_max_inflight_offloads"] = rng.choice([1, -1])
    return m


def _focused(rng: random.Random, era: Era) -> dict[str, Any]:
    """An otherwise valid MoE model around one of the rewrites MCore makes before its graph
    asserts (``moe_layer_recompute``, a negative capacity factor) or, on 0.19+, the GTP +
    local graphs + shared_experts recompute assert: random configs reach them too rarely,
    because an earlier error masks them."""
    r = rng.random
    key = "cuda_graph_scope" if era.name == "legacy" else "cuda_graph_modules"
    m: dict[str, Any] = {"num_moe_experts": 4, "moe_token_dispatcher_type": "alltoall", "moe_layer_freq": rng.choice([1, [1, 0]]),
                         "attention_dropout": rng.choice([0.0, 0.1]), "hidden_dropout": rng.choice([0.0, 0.1]),
                         "cuda_graph_impl": rng.choice(["local", "transformer_engine"])}
    m[key] = rng.choice([[], ["attn"], ["moe_router"], ["moe_router", "moe_preprocess"], ["attn", "moe_router"], ["moe"]])
    kind = rng.choice(["layer_recompute", "capacity"] + (["gtp", "gtp"] if era.since("0.19") else []))
    if kind == "layer_recompute":
        m["moe_layer_recompute"] = True
        if r() < 0.5:
            m["recompute_granularity"] = "selective"
            m["recompute_modules"] = rng.choice([["core_attn"], ["layernorm"], ["mlp"]])
    elif kind == "capacity":
        m["moe_expert_capacity_factor"] = rng.choice([-1.0, -0.5, 1.0])
        m["moe_pad_expert_input_to_capacity"] = r() < 0.5
    else:
        m.update(cuda_graph_impl="local", gtp_weight_remat_size=rng.choice([1, 2]), moe_shared_expert_intermediate_size=64,
                 recompute_granularity="selective", attention_dropout=0.0, hidden_dropout=0.0,
                 recompute_modules=rng.choice([["shared_experts"], ["shared_experts", "layernorm"], ["layernorm"]]))
        if r() < 0.8:
            m["fp4"] = "e2m1"
        if r() < 0.2 and "shared_experts" not in m["recompute_modules"]:
            m["moe_shared_expert_overlap"] = True
    return m


@dataclass
class Result:
    era: str
    mcore_version: str
    count: int = 0
    oracle_errors: int = 0
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    unmatched_oracle_errors: dict[str, int] = field(default_factory=dict)
    rules_hit: dict[str, int] = field(default_factory=dict)
    drawn: dict[str, int] = field(default_factory=dict)  # how often the fields MCore rewrites were drawn

    def to_dict(self) -> dict[str, Any]:
        return {"era": self.era, "mcore_version": self.mcore_version, "count": self.count,
                "oracle_errors": self.oracle_errors, "disagreements": len(self.disagreements),
                "disagreement_examples": self.disagreements[:10],
                "unmatched_oracle_errors": self.unmatched_oracle_errors, "rules_hit": dict(sorted(self.rules_hit.items())),
                "agreement": round(1 - len(self.disagreements) / self.count, 6) if self.count else None,
                "drawn": dict(sorted(self.drawn.items()))}


def compare(model: dict[str, Any], era: Era) -> tuple[bool, set[str], dict[str, Any]]:
    """(agree, catalog MCore-level error rule ids, oracle verdict) for one model section."""
    cfg = CanonicalConfig.from_nested(model, flat_section="model")
    ids = {f.rule for f in check(cfg, era, levels=("mcore",)) if f.severity == "error"}
    verdict = oracle.run(model)
    return oracle.agrees(ids, verdict), ids, verdict


def run(era: Era, count: int, seed: int = 0) -> Result:
    rng = random.Random(seed)
    res = Result(era=era.name, mcore_version=era.mcore_version)
    for _ in range(count):
        model = generate(rng, era)
        agree, ids, verdict = compare(model, era)
        res.count += 1
        for name, hit in _drawn(model).items():
            res.drawn[name] = res.drawn.get(name, 0) + hit
        res.oracle_errors += not verdict["ok"]
        if verdict["rule"]:
            res.rules_hit[verdict["rule"]] = res.rules_hit.get(verdict["rule"], 0) + 1
        elif not verdict["ok"]:
            msg = (verdict["error"] or "")[:120]
            res.unmatched_oracle_errors[msg] = res.unmatched_oracle_errors.get(msg, 0) + 1
        if not agree:
            res.disagreements.append({"model": model, "catalog": sorted(ids), "oracle": verdict.get("error")})
    return res


def _drawn(model: dict[str, Any]) -> dict[str, int]:
    factor = model.get("moe_expert_capacity_factor")
    return {"moe_layer_recompute": int(bool(model.get("moe_layer_recompute"))),
            "negative_capacity_factor": int(isinstance(factor, float) and factor < 0),
            "gtp_weight_remat_size>1": int((model.get("gtp_weight_remat_size") or 1) > 1),
            "fp4": int(model.get("fp4") is not None),
            "shared_experts": int(model.get("moe_shared_expert_intermediate_size") is not None),
            "shared_experts_recompute": int("shared_experts" in (model.get("recompute_modules") or []))}
