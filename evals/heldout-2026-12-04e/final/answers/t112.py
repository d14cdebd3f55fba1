"""CUDA-graph overrides for our drop-and-pad MoE run (capacity factor 1.0, padded to capacity).

Q: can the MoE block itself be captured, and what are the rules?
A: Yes. With drop-and-pad every expert sees a fixed, padded token count, so the MoE layer has
   static shapes and the `moe` scope is legal. Rules, encoded below:
     * capacity factor set AND moe_pad_expert_input_to_capacity=True, otherwise megatron-core
       asserts "moe cuda graph is only supported with drop-padding MoE."
     * cuda_graph_impl="transformer_engine" (Bridge only accepts "local" for full iteration)
     * TE RNG tracker on, in both places
     * static seq_length / micro-batch size
   Key spelling differs by megatron-core era: cuda_graph_scope on 0.16-0.17,
   cuda_graph_modules on 0.18+.
"""

from typing import Any, TypedDict


class MoEGraphOverrides(TypedDict, total=False):
    moe_expert_capacity_factor: float
    moe_pad_expert_input_to_capacity: bool
    cuda_graph_impl: str
    cuda_graph_scope: Any
    cuda_graph_modules: list[str]
    cuda_graph_warmup_steps: int
    use_te_rng_tracker: bool


# Capture attention plus the full MoE block. The router and its preprocess are listed
# as well so the token routing that feeds the padded experts is graphed too.
_GRAPHED = ["attn", "moe", "moe_router", "moe_preprocess"]

LEGACY_016_017: MoEGraphOverrides = {
    "moe_expert_capacity_factor": 1.0,
    "moe_pad_expert_input_to_capacity": True,
    "cuda_graph_impl": "transformer_engine",
    "cuda_graph_scope": _GRAPHED,
    "cuda_graph_warmup_steps": 3,
    "use_te_rng_tracker": True,
}

CURRENT_018_PLUS: MoEGraphOverrides = {
    "moe_expert_capacity_factor": 1.0,
    "moe_pad_expert_input_to_capacity": True,
    "cuda_graph_impl": "transformer_engine",
    "cuda_graph_scope": None,  # recipe default "full" cannot coexist with cuda_graph_modules
    "cuda_graph_modules": _GRAPHED,
    "cuda_graph_warmup_steps": 3,
    "use_te_rng_tracker": True,
}


def apply(cfg, overrides: MoEGraphOverrides) -> None:
    """Write the model overrides and the RNG-side tracker flag onto a Bridge ConfigContainer."""
    for key, value in overrides.items():
        setattr(cfg.model, key, value)
    cfg.rng.te_rng_tracker = True


# usage:
#   import megatron.core as mc
#   from packaging.version import Version
#   apply(cfg, CURRENT_018_PLUS if Version(mc.__version__) >= Version("0.18") else LEGACY_016_017)
