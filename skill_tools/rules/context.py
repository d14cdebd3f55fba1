"""What every check reads: :class:`Ctx` (the config, its era, the model as megatron-core sees it,
the simulated post-init, the front end) and the spelling aliases of impls and scopes.

``catalog.yaml`` holds what a rule *says* and names its check (``check: module.function``); the
check modules (``mcore_checks``, ``bridge_checks``, ``era_checks``, ``loop_checks``, ``cli_checks``,
``key_checks``, ``model_class_checks``) hold only *when* it fires.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from skill_tools.config.era import Era, GraphIntent, intent_values
from skill_tools.config.model import CanonicalConfig
from skill_tools.rules.mcore_sim import Sim, augmented_modules

#: A rule's check: yields one dict per finding (the message's values, optionally fix/keys/severity).
Check = Callable[["Ctx"], Iterable[dict[str, Any]]]

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
        if n is not None or self.cfg.has("model.num_moe_experts"):
            return n is not None and n > 1  # said explicitly: it decides
        ep = self.model.get("expert_model_parallel_size")  # expert parallelism exists only for MoE
        return isinstance(ep, int) and not isinstance(ep, bool) and ep > 1

    @property
    def partial(self) -> bool:
        """Whether keys the input leaves out come from something the input does not show: a
        run_script.py line, or a Bridge config that names the recipe it builds on
        (``meta.model_recipe_name``) without defining the model (the recipe sets the rest), or a
        Megatron-LM launch with --use-checkpoint-args (the model's fields come from the checkpoint).
        A Bridge config that names no recipe stands on Bridge's own defaults."""
        if self.cfg.fmt == "run_script":
            return True
        if self.frontend == "bridge":
            return self.cfg.has("meta.model_recipe_name") and not (
                self.cfg.has("model.num_layers") or self.cfg.has("model.hidden_size"))
        return self.frontend == "megatron_lm" and bool(self.cfg.get("model.use_checkpoint_args"))

    def unknown(self, key: str) -> bool:
        """A key the input does not set, whose value therefore cannot be known here (see ``partial``)."""
        return self.partial and not self.cfg.has(key)

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


def did_you_mean(s: str | None) -> str:
    return f" (did you mean {s!r}?)" if s else ""
