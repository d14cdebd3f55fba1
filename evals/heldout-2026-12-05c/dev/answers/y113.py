"""Override registry for the DeepSeek-V3-style MoE recipes.

Each function mutates a ``ConfigContainer`` in place; stack them with
``apply_overrides(cfg, "ep_overlap_te_graphs")``. Target: megatron-core 0.18+ / Bridge v0.4+.
"""

from typing import Callable, Dict

from megatron.bridge.training.config import ConfigContainer

OVERRIDES: Dict[str, Callable[[ConfigContainer], None]] = {}


def override(name: str):
    def register(fn: Callable[[ConfigContainer], None]):
        OVERRIDES[name] = fn
        return fn

    return register


@override("ep_overlap")
def ep_overlap(cfg: ConfigContainer) -> None:
    # EP all-to-all overlapped with compute; needs EP > 1, alltoall/flex dispatcher,
    # bf16, and no full recompute.
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True
    cfg.model.recompute_granularity = None


@override("ep_overlap_te_graphs")
def ep_overlap_te_graphs(cfg: ConfigContainer) -> None:
    ep_overlap(cfg)

    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None  # the stock recipe sets it; scope + modules together asserts on 0.18+
    # Graph everything that sits outside the overlapped expert all-to-all:
    #   attn                         -> every layer
    #   mlp                          -> the first_k_dense dense layers at the bottom of the stack
    #   moe_router + moe_preprocess  -> routing/permutation of the MoE layers
    # The expert computation itself ("moe") stays eager: its dispatch/combine is what
    # EP overlap interleaves.
    cfg.model.cuda_graph_modules = ["attn", "mlp", "moe_router", "moe_preprocess"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # Delayed wgrad inside graphed modules: wgrads are written into main_grad at replay,
    # so accumulation must go through static buffers (TE >= 2.12 required).
    cfg.model.gradient_accumulation_fusion = True
    # Graphed attention with delayed wgrad does not support attention bias.
    cfg.model.add_bias_linear = False
    cfg.model.add_qkv_bias = False


def apply_overrides(cfg: ConfigContainer, *names: str) -> ConfigContainer:
    for name in names:
        OVERRIDES[name](cfg)
    return cfg


# Before trusting it: run 50 steps eager vs graphed with the same seed, compare
# steady-state step time and loss, and keep an eye on grad norm (an open report,
# Megatron-LM#5966, shows NaN after ~80 steps with TE attn graphs + EP overlap; if it
# happens, remove graph modules one at a time, attn first).
