"""DeepSeek-style MoE: EP all-to-all overlap + delayed wgrad + TE per-layer CUDA graphs.

Megatron Bridge recipe snippet (megatron-core 0.18+ spelling; 0.16-0.17 notes inline).
"""
from megatron.bridge.training.comm_overlap import CommOverlapConfig


def enable_graphs_with_ep_overlap(cfg):
    # --- CUDA graphs -------------------------------------------------------
    cfg.model.cuda_graph_impl = "transformer_engine"  # EP overlap: TE impl only
    cfg.model.cuda_graph_scope = None  # stock recipes set it; with modules too, 0.18+ asserts
    # With overlap_moe_expert_parallel_comm, MCore refuses "moe" and "mlp" in the TE scope
    # ("CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm").
    # Dispatch + experts stay eager; graph what's around them:
    cfg.model.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    # 0.16-0.17: cfg.model.cuda_graph_scope = ["attn", "moe_router", "moe_preprocess"]
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True  # both RNG switches are required with graphs
    cfg.rng.te_rng_tracker = True

    # --- delayed wgrad inside graphed modules ------------------------------
    # attn (and moe_router when the shared experts aren't overlapped -- and EP overlap
    # requires moe_shared_expert_overlap=False) put weight-grad work inside a graph. Then:
    #   * TE >= 2.12 (Bridge's CommOverlapConfig and Megatron-LM's arguments.py assert it;
    #     TransformerConfig on its own only asks for >= 2.10 with partial TE graphs)
    #   * gradient_accumulation_fusion=True: the delayed wgrad must accumulate straight
    #     into the static main_grad buffers; the unfused path doesn't use static addresses
    #   * no attention bias while attn is graphed
    cfg.model.gradient_accumulation_fusion = True
    cfg.model.add_bias_linear = False
    cfg.model.add_qkv_bias = False
    cfg.model.moe_shared_expert_overlap = False

    cfg.comm_overlap = CommOverlapConfig(
        tp_comm_overlap=cfg.model.tensor_model_parallel_size > 1,
        overlap_moe_expert_parallel_comm=True,
        delay_wgrad_compute=True,
    )

    # EP overlap itself also needs: alltoall or flex dispatcher, bf16/fp16, no full
    # recompute (and no "moe" in recompute_modules), MTP <= 1 layer. If you use the
    # alltoall dispatcher with a capacity factor or moe_router_padding_for_fp8,
    # drop "moe_preprocess" (DtoH sync in preprocess).
    return cfg


# Checks before trusting it:
#   python -c "import transformer_engine as te; print(te.__version__)"   # >= 2.12
#   log: "Rank N: K graphable layers." with K > 0 on every PP stage + capture time line
#   A/B vs eager on the same dispatcher/overlap stack; watch grad norm. An open report
#   (Megatron-LM#5966) shows grad norm -> NaN after ~80-90 iterations with TE attn graphs
#   + EP overlap; if you see that, drop "attn" from the modules first and re-run.
