"""DeepSeek-style MoE: EP A2A overlap + delayed wgrad + TE-scoped CUDA graphs.

Bridge ConfigContainer tweaks for megatron-core 0.18+/0.19 (cuda_graph_modules era).
On 0.16/0.17 put the same list in cfg.model.cuda_graph_scope and leave out
cuda_graph_modules.

Prerequisites this function does not install for you:
  * Transformer Engine >= 2.12 -- graphing a region that holds delayed wgrad
    (attn, or moe_router when shared experts are not overlapped) with
    delay_wgrad_compute asserts "CUDA graph with delay_wgrad_compute requires
    TE version >= 2.12.0." (Megatron-LM arguments / Bridge comm_overlap). The
    TransformerConfig check alone only asks for 2.10, but that is not enough.
  * torch >= 2.6 (EP A2A overlap asserts on older torch).
"""

from megatron.bridge.training.config import ConfigContainer


def enable_graphs_with_ep_overlap(cfg: ConfigContainer) -> ConfigContainer:
    m = cfg.model

    # --- scopes ---------------------------------------------------------------
    # With overlap_moe_expert_parallel_comm, MCore rejects "moe" and "mlp":
    #   "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm"
    # That also rules out "mlp" for the dense first layers of a DeepSeek-V3-like
    # model, and an empty list (whole layer) would put the dispatcher inside the graph.
    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_scope = None  # stock recipes set it; scope + modules together asserts on 0.18+
    m.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    m.cuda_graph_warmup_steps = 3

    # Graphs need TE's graph-safe RNG tracker (Bridge asserts without both).
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # --- delayed wgrad inside graphs ---------------------------------------
    # The delayed weight-gradient GEMMs must accumulate into static main_grad
    # buffers, so fused gradient accumulation has to stay on.
    m.gradient_accumulation_fusion = True
    # Attention bias isn't supported with delay_wgrad + graphed attn.
    m.add_bias_linear = False
    m.add_qkv_bias = False

    # --- the overlap itself (Bridge routes these through comm_overlap) -----
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True

    # EP overlap's own requirements (independent of graphs):
    #   expert_model_parallel_size > 1, dispatcher alltoall or flex, bf16/fp16,
    #   no full recompute / recompute_method / "moe" in recompute_modules,
    #   moe_shared_expert_overlap=False, mtp_num_layers <= 1,
    #   and with PP > 1 a virtual_pipeline_model_parallel_size.
    m.moe_shared_expert_overlap = False

    # moe_preprocess can't be graphed if the alltoall dispatcher's preprocess
    # syncs to host (capacity factor set, or moe_router_padding_for_fp8=True).
    # In that case drop "moe_preprocess" and keep ["attn", "moe_router"].
    return cfg


# How to check it:
#   1. Eager run with the same overlap settings -> baseline loss + steady-state step time.
#   2. Graphed run: "Rank N: K graphable layers." (K > 0 on every PP stage), capture-time line.
#   3. Watch grad norm for the first few hundred iterations. A NaN around iteration 80-90
#      was reported with TE attn graphs + EP overlap (Megatron-LM#5966). If you see one,
#      drop "attn" from the modules first, then remove the graph flags entirely to bisect.
