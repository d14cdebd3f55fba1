"""The plan record: what ``bench --config`` and ``precheck --config`` will run, and why.

A typed, versioned record (``schema_version``) that names every field it took from the config
(with the key or flag and its line), every field it changed (with the rule and what the change
means for the result), the memory estimate, the candidates, and any refusal. Pure data: it is
built and printed without torch, and crosses into the engines as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skill_tools.config.shape import DEFAULT, Layout, ModelShape
from skill_tools.plan.candidates import Candidate
from skill_tools.plan.fit import Change, Refusal

SCHEMA_VERSION = 1
#: GPU capacities the plan knows by name (GB usable by one process, rounded down).
GPUS = {"h200": 139.0, "h100": 79.0, "b200": 178.0, "a100": 79.0, "gb200": 184.0}


@dataclass
class Plan:
    source: str
    fmt: str
    engine: str
    gpus: int
    gpu_name: str
    capacity_gb: float
    recipe: str | None
    shape: ModelShape  # the user's full shape, as read
    layout: Layout  # the user's layout, as read
    run_shape: ModelShape  # what the engine runs
    run_layout: Layout
    changes: list[Change]
    refusals: list[Refusal]
    candidates: list[Candidate]
    memory: dict[str, Any] | None
    projection: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)
    schema_version: int = SCHEMA_VERSION

    @property
    def refused(self) -> bool:
        return bool(self.refusals)

    def taken(self) -> dict[str, dict[str, Any]]:
        """Fields read from the config (or its recipe), with where each came from."""
        out = {}
        for obj, prefix in ((self.shape, ""), (self.layout, "layout.")):
            for name, origin in obj.origin.items():
                if not origin.startswith(DEFAULT) and hasattr(obj, name):
                    out[prefix + name] = {"value": getattr(obj, name), "from": origin}
        return out

    def defaults(self) -> dict[str, dict[str, Any]]:
        out = {}
        for obj, prefix in ((self.shape, ""), (self.layout, "layout.")):
            for name, origin in obj.origin.items():
                if origin.startswith(DEFAULT) and hasattr(obj, name):
                    out[prefix + name] = {"value": getattr(obj, name), "from": origin}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version, "kind": "plan", "source": self.source, "format": self.fmt,
            "engine": self.engine, "recipe": self.recipe,
            "gpus": {"count": self.gpus, "name": self.gpu_name, "capacity_gb": self.capacity_gb},
            "taken": self.taken(), "defaults": self.defaults(),
            "changed": [c.to_dict() for c in self.changes], "refusals": [r.to_dict() for r in self.refusals],
            "shape": self.shape.to_dict(), "layout": self.layout.to_dict(),
            "run_shape": self.run_shape.to_dict(), "run_layout": self.run_layout.to_dict(),
            "memory": self.memory, "projection": self.projection,
            "candidates": [c.to_dict() for c in self.candidates], "notes": list(self.notes),
        }


def text(plan: Plan) -> str:
    """The plan for people: what was read, what changed and why, memory, candidates, refusals."""
    s, r = plan.run_shape, plan.run_layout
    lines = [f"plan for {plan.source} ({plan.fmt}{', recipe ' + plan.recipe if plan.recipe else ''}) "
             f"on {plan.gpus} x {plan.gpu_name} ({plan.capacity_gb:.0f} GB), engine {plan.engine}"]
    kind = (f"MoE {s.num_experts} experts top-{s.moe_router_topk}, moe ffn {s.moe_ffn_hidden_size}, "
            f"{s.moe_token_dispatcher_type}{' drop-and-pad' if s.moe_expert_capacity_factor is not None else ' dropless'}"
            + (f", shared expert {s.moe_shared_expert_intermediate_size}" if s.moe_shared_expert_intermediate_size
               else "") if s.is_moe else "dense")
    lines.append(f"layer shape: hidden {s.hidden_size}, ffn {s.ffn_hidden_size}, heads {s.num_attention_heads} "
                 f"(query groups {s.num_query_groups}, kv channels {s.kv_channels}), seq {s.seq_length}, "
                 f"micro-batch {s.micro_batch_size}, vocab {s.vocab_size}, {s.normalization}, {s.activation}, "
                 f"{s.position_embedding_type}{', qk layernorm' if s.qk_layernorm else ''}, {kind}, {s.precision}")
    lines.append(f"runs: {s.num_layers} of {plan.shape.num_layers} layers; TP {r.tp} PP {r.pp} CP {r.cp} EP {r.ep} "
                 f"DP {r.dp} on {r.nproc} GPU(s)")
    lines.append("taken from the config:")
    lines += [f"  {k} = {v['value']!r}  <- {v['from']}" for k, v in plan.taken().items()]
    defaults = plan.defaults()
    if defaults:
        lines.append("not in the config (defaults):")
        lines += [f"  {k} = {v['value']!r}  <- {v['from']}" for k, v in defaults.items()]
    lines += [c.line() for c in plan.changes] or ["adapted: nothing (the config runs as it is)"]
    if plan.memory:
        m = plan.memory
        lines.append(f"memory: {m['total_gb']:.1f} GB estimated of {m['budget_gb']:.0f} GB budget "
                     f"({m['capacity_gb']:.0f} GB GPU less {100 * (1 - m['budget_gb'] / m['capacity_gb']):.0f}%): "
                     f"{m['per_dense_layer_gb']:.2f} GB per dense layer"
                     + (f", {m['per_moe_layer_gb']:.2f} GB per MoE layer" if m["per_moe_layer_gb"] else "")
                     + f", {m['embedding_and_logits_gb']:.1f} GB embedding + logits")
    if plan.projection:
        here, own = plan.projection["all_layers_here"], plan.projection["per_gpu_at_config_layout"]
        lines.append(f"projection, all {plan.shape.num_layers} layers: {here['total_gb']:.0f} GB on the GPUs here "
                     f"({'fits' if here['fits'] else 'does not fit'}); {own['total_gb']:.0f} GB per GPU at the "
                     f"config's layout ({own['layers_per_stage']} layers per stage, DP {own['dp_assumed']})")
    lines.append("candidates:")
    lines += [f"  {c.name:36s} {c.why}" + (f"  [validator rejects: {', '.join(c.rejected_by)}]" if c.rejected_by
                                            else "") for c in plan.candidates]
    lines += [f"note: {n}" for n in plan.notes]
    lines += [x.line() for x in plan.refusals]
    return "\n".join(lines)
