"""Dagster op that builds the Megatron Bridge config for a drop-and-pad MoE run with the MoE
block captured by CUDA graphs.

Answer to: "My MoE model uses moe_expert_capacity_factor=1.0 with
moe_pad_expert_input_to_capacity=True (drop and pad). Can I capture the MoE block itself?"

Yes. Drop-and-pad gives every expert a fixed-capacity buffer, so the MoE layer has static shapes
and no host sync; that is exactly the case the `moe` module is for. The rules:

1. `moe` needs drop-and-pad: a capacity factor AND moe_pad_expert_input_to_capacity=True.
   Without padding MCore asserts "moe cuda graph is only supported with drop-padding MoE."
2. `moe` already contains the router: never list `moe_router` (or `moe_preprocess`, which
   requires `moe_router`) with it -> "cuda_graph_modules must not contain both moe and moe_router."
   (0.16/0.17 wording: "cuda_graph_scope must not contain both moe and moe_router.")
3. Use the Transformer Engine implementation; key name depends on the era:
   0.18+ `cuda_graph_modules`, 0.16-0.17 `cuda_graph_scope`.
4. TE RNG tracker on (both keys), static seq length / micro-batch size.
5. If you recompute: selective only, and not `moe` while `moe` is graphed if hidden dropout or
   input jitter is on.
"""
from dagster import Config, In, Out, op


class MoEGraphConfig(Config):
    mcore_minor: int = 19              # 16/17 -> legacy key, 18+ -> cuda_graph_modules
    graph_attention: bool = True       # A/B with and without "attn"
    warmup_steps: int = 3


@op(ins={"cfg": In()}, out=Out())
def enable_moe_block_graphs(context, config: MoEGraphConfig, cfg):
    m = cfg.model

    # Drop-and-pad: this is what makes `moe` legal.
    m.moe_expert_capacity_factor = 1.0
    m.moe_pad_expert_input_to_capacity = True

    modules = (["attn"] if config.graph_attention else []) + ["moe"]   # no moe_router / moe_preprocess

    m.cuda_graph_impl = "transformer_engine"
    if config.mcore_minor >= 18:
        m.cuda_graph_scope = None          # stock recipes set one; both set -> 0.18+ asserts
        m.cuda_graph_modules = modules
    else:
        m.cuda_graph_scope = modules
    m.cuda_graph_warmup_steps = config.warmup_steps

    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    context.log.info(f"TE CUDA graphs on {modules} (drop-and-pad MoE, capacity 1.0, padded)")
    return cfg

# Verify: log shows "Start CUDA Graphs capture..." / "Time spent in CUDA Graphs capture";
# compare steady-state replay iterations with an eager run of the same drop-and-pad config.
