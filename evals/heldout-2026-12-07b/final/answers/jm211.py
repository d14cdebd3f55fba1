"""TE CUDA graphs on a DeepSeek-style MoE that already uses EP all-to-all overlap + delayed wgrad.

Megatron Bridge, megatron-core 0.18+ (cuda_graph_modules). On 0.16/0.17 put the same list in
cfg.model.cuda_graph_scope instead and leave cuda_graph_modules out.

This is the scope NVIDIA's own DeepSeek-V3 perf recipes use with
overlap_moe_expert_parallel_comm + delay_wgrad_compute.
"""

from megatron.core.utils import is_te_min_version


def enable_te_graphs_with_ep_overlap(cfg):
    # Overlap features you already run with.
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True

    # --- Scope --------------------------------------------------------------------------------
    # With EP A2A overlap only attn, moe_router and moe_preprocess may be captured. MCore rejects
    # the rest: "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm".
    # That includes 'mlp' for the dense first layers. Don't use an empty list (whole layer) either:
    # the overlapped dispatch/combine lives inside the MoE part of the layer.
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = None  # stock recipes set the deprecated key; clear it on 0.18+
    cfg.model.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    cfg.model.cuda_graph_warmup_steps = 3

    # Any graph needs TE's RNG tracker (Bridge asserts otherwise).
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- Delayed wgrad inside a graph -----------------------------------------------------------
    # The wgrad is "in the graph" when attn is captured, or moe_router with shared experts that are
    # not overlapped. Then:
    #   * TE >= 2.12. TransformerConfig only checks 2.10 for delay_wgrad + partial graphs, but the
    #     graph-specific check (Bridge comm_overlap / Megatron-LM arguments.py) requires 2.12.
    #   * gradient_accumulation_fusion=True: the delayed wgrad must accumulate into the static
    #     main_grad buffers. The unfused path doesn't use static addresses, which breaks replay.
    #   * no attention bias (add_bias_linear / add_qkv_bias) with attn captured.
    assert is_te_min_version("2.12.0"), "delay_wgrad_compute inside CUDA graphs needs TE >= 2.12"
    cfg.model.gradient_accumulation_fusion = True
    assert not cfg.model.add_bias_linear and not cfg.model.add_qkv_bias, (
        "CUDA graph with delay_wgrad_compute does not support attention bias"
    )

    # --- moe_preprocess prerequisite -----------------------------------------------------------
    # With the alltoall dispatcher, preprocess syncs to host when a capacity factor is set or
    # moe_router_padding_for_fp8 is on; MCore then refuses 'moe_preprocess'. Dropless + flex/DeepEP
    # (what the DeepSeek recipes use) is fine.
    if cfg.model.moe_token_dispatcher_type == "alltoall":
        assert cfg.model.moe_expert_capacity_factor is None and not cfg.model.moe_router_padding_for_fp8, (
            "drop 'moe_preprocess' from the modules for this dispatcher setup"
        )
    return cfg


# Operational notes
# - PP > 1 with EP overlap needs virtual pipeline stages (MCore asserts).
# - Memory: with EP overlap the TE helper captures one graph per layer per microbatch (even at
#   PP=1), so graph memory grows with GBS / (MBS * DP). Leave headroom.
# - Watch grad norm for the first few hundred steps. A grad-norm blow-up to NaN around iteration
#   80-90 has been reported with TE attn graphs + EP overlap (Megatron-LM#5966). If you see it,
#   rerun eagerly (cuda_graph_impl="none") to confirm, then retry without 'attn' in the modules.
# - A/B against the same config with graphs off: steady-state step time only, loss parity.
