# Bridge recipe override: DeepSeek-style MoE with EP A2A overlap + delayed wgrad
# + TE partial CUDA graphs.  Targets megatron-core 0.18/0.19 (cuda_graph_modules).
# On 0.16/0.17 use cuda_graph_scope=[...] with the same values.
#
# Rules this encodes (TransformerConfig.__post_init__ at 0.19):
#  * overlap_moe_expert_parallel_comm + transformer_engine graphs:
#      "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm"
#      -> only attn / moe_router / moe_preprocess may be graphed.
#  * moe_preprocess requires moe_router; moe and moe_router are mutually exclusive.
#  * delay_wgrad_compute requires overlap_moe_expert_parallel_comm, and with
#    TE partial graphs a TE >= 2.10 (use >= 2.12; earlier builds had wgrad/graph bugs).
#  * delayed wgrad writes into static main_grad buffers from outside the graph:
#    gradient_accumulation_fusion must be on.  No attention bias (add_qkv_bias / add_bias_linear
#    on attn) in this mode.
#  * EP overlap: EP > 1, alltoall/flex dispatcher, bf16, no full recompute,
#    VPP set if PP > 1, moe_shared_expert_overlap off.


def deepseek_ep_overlap_graphs(cfg):
    m = cfg.model

    # EP overlap + delayed wgrad
    m.expert_model_parallel_size = 8
    m.moe_token_dispatcher_type = "alltoall"      # or "flex"
    m.overlap_moe_expert_parallel_comm = True
    m.delay_wgrad_compute = True
    m.moe_shared_expert_overlap = False
    m.bf16 = True
    m.recompute_granularity = None
    if m.pipeline_model_parallel_size > 1:
        assert m.virtual_pipeline_model_parallel_size is not None, "EP overlap with PP>1 needs VPP"

    # wgrad into static main_grad buffers
    m.gradient_accumulation_fusion = True
    m.add_qkv_bias = False

    # TE partial graphs: no "moe", no "mlp"
    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    m.cuda_graph_warmup_steps = 3
    cfg.rng.te_rng_tracker = True

    # moe_preprocess graph is rejected for alltoall when there are DtoH syncs
    # (capacity factor / router padding for fp8) - drop it in that case.
    if m.moe_expert_capacity_factor is not None or getattr(m, "moe_router_padding_for_fp8", False):
        m.cuda_graph_modules = ["attn", "moe_router"]
    return cfg


# Validation: run 200+ steps and watch grad norm against a no-graph baseline.
# A NaN grad norm after ~80 iterations was reported with TE attn graphs + EP
# overlap (Megatron-LM#5966). If you see it, bisect by removing the graph
# flags first (cuda_graph_impl="none"), then delay_wgrad_compute.
