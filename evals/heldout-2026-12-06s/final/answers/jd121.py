# Diagnosis
# ---------
# "moe recompute is not supported with moe_router CUDA graph with: "
#
# recompute_modules=["moe", ...] checkpoints the whole MoE block and re-runs it in backward,
# router included. With cuda_graph_impl="transformer_engine" the router (and the dispatch
# preprocess) are captured as part of the layer's graph, so the recompute region would wrap a
# graphed region. MCore only allows a recompute module to sit fully inside or fully outside the
# graphed part, so it rejects "moe" recompute whenever moe_router is graphed.
#
# The message really is cut off: in transformer_config.py the continuation string
# "--cuda-graph-impl transformer_engine." is a separate statement after the assert, not part of
# the message, so you only see "...with: ". Intended meaning: "...with --cuda-graph-impl
# transformer_engine."
#
# Fix: pick ONE of the two options below. Keys are for megatron-core 0.18+; on 0.16/0.17 put the
# list in cfg.model.cuda_graph_scope instead of cuda_graph_modules.


def option_a_keep_router_graphs(cfg):
    """Keep attn + moe_router + moe_preprocess graphed; stop recomputing the whole MoE block."""
    cfg.model.recompute_granularity = "selective"
    # moe_act: recompute only the expert activation (needs moe_grouped_gemm=True).
    # layernorm: unchanged from your config. Add "mla_up_proj" if the model uses MLA.
    cfg.model.recompute_modules = ["moe_act", "layernorm"]
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


def option_b_keep_moe_recompute(cfg):
    """Keep recomputing the MoE block; graph attention only.

    moe_preprocess can't stay without moe_router anyway ("moe_preprocess cuda graph is only
    supported with moe_router cuda graph."), so both go.
    """
    cfg.model.recompute_granularity = "selective"
    cfg.model.recompute_modules = ["moe", "layernorm"]
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = ["attn"]
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Which one?
#  - A keeps the router/preprocess graphs, which is where most of the launch-overhead win is on
#    MoE models, but saves less activation memory than recomputing the whole MoE block.
#    Re-check peak memory.
#  - B keeps the memory profile you have now and gives up the router graphs; the graph win then
#    comes from attention only and may be small.
#  Don't try to get around it with recompute_granularity="full": that is only accepted with a
#  full-iteration graph, which doesn't work for dropless MoE.
#
# Then A/B against eager on iterations after the capture step (warmup 3 -> iteration 4
# captures) and compare loss.
