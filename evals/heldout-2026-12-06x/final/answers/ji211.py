"""TE CUDA graphs on a DeepSeek-style MoE with EP A2A overlap + delayed wgrad (Megatron Bridge).

Scope: with overlap_moe_expert_parallel_comm=True only the pre-dispatch part of the layer can
be graphed: "attn", "moe_router", "moe_preprocess". "moe" and "mlp" are rejected ("CUDA graph
scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm"), and so is an empty
list / whole layer: the A2A overlap schedule has to run dispatch/experts/combine itself.

Prerequisites once delay_wgrad_compute is on and the graph covers attn (or moe_router with
un-overlapped shared experts):
  * Transformer Engine >= 2.12 (0.16's TransformerConfig only checked >= 2.10; the newer
    Bridge/Megatron-LM checks want 2.12). The delayed wgrad is replayed from graphed layers, so
    it must land in static buffers.
  * gradient_accumulation_fusion=True: fused accumulation writes wgrad straight into main_grad,
    whose address is static; the unfused path allocates a fresh grad tensor and breaks replay.
  * no attention bias: add_bias_linear=False and add_qkv_bias=False.
  * TE RNG tracker on (model + rng), as for any CUDA graph.
EP overlap's own requirements also still apply: EP>1, alltoall/flex dispatcher, bf16,
moe_shared_expert_overlap=False, no full recompute, VPP set if PP>1, MTP at most 1 layer.
"""

from megatron.bridge.training.comm_overlap import CommOverlapConfig


def enable_graphs_with_ep_overlap(cfg, mcore_major_minor=(0, 19)):
    m = cfg.model

    # --- EP overlap + delayed wgrad (Bridge routes these through comm_overlap) ---
    assert m.expert_model_parallel_size > 1, "EP A2A overlap needs EP > 1"
    assert m.moe_token_dispatcher_type in ("alltoall", "flex")
    if m.pipeline_model_parallel_size > 1:
        assert m.virtual_pipeline_model_parallel_size is not None, "EP overlap with PP needs VPP"
    cfg.comm_overlap = cfg.comm_overlap or CommOverlapConfig(tp_comm_overlap=False)
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True
    m.moe_shared_expert_overlap = False          # incompatible with EP A2A overlap
    m.recompute_granularity = None               # or "selective" without "moe" in recompute_modules

    # --- delayed-wgrad + graph prerequisites ---
    m.gradient_accumulation_fusion = True        # static main_grad targets for graphed wgrad
    m.add_bias_linear = False                    # attn bias unsupported with delayed wgrad graphs
    m.add_qkv_bias = False

    # --- the graphs themselves ---
    scopes = ["attn", "moe_router", "moe_preprocess"]   # never "moe" / "mlp" / [] here
    # moe_preprocess must not see DtoH syncs: with the alltoall dispatcher keep the MoE dropless
    # (no moe_expert_capacity_factor) and moe_router_padding_for_fp8=False, or drop moe_preprocess.
    if m.moe_token_dispatcher_type == "alltoall" and (
        m.moe_expert_capacity_factor is not None or getattr(m, "moe_router_padding_for_fp8", False)
    ):
        scopes.remove("moe_preprocess")

    m.cuda_graph_impl = "transformer_engine"
    if mcore_major_minor >= (0, 18):
        m.cuda_graph_scope = None                # stock recipes set it; both set -> assert
        m.cuda_graph_modules = scopes
    else:
        m.cuda_graph_scope = scopes
    m.cuda_graph_warmup_steps = 3
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# Before a long run:
#   python -c "import transformer_engine as te; print(te.__version__)"   # want >= 2.12
#   log: "Rank N: K graphable layers." on every PP stage, then the capture time line
#   A/B vs eager on the same seed and watch grad norm for ~100+ iterations: a NaN grad norm
#   after ~80 iterations has been reported with TE attn graphs + EP overlap
#   (NVIDIA/Megatron-LM#5966). If you see it, bisect by dropping the graph flags first.
