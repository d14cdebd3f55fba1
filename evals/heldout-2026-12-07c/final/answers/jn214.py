# deepseek_ep_overlap_cuda_graphs.py
#
# TE-scoped CUDA graphs on a DeepSeek-style MoE that already runs with
#   overlap_moe_expert_parallel_comm=True, delay_wgrad_compute=True
# (Megatron Bridge, megatron-core 0.18+/0.19 spelling; see the bottom for 0.16/0.17).

from megatron.bridge.training.config import ConfigContainer


def add_cuda_graphs_for_ep_overlap(cfg: ConfigContainer) -> ConfigContainer:
    m = cfg.model

    # 1) Scope. EP A2A overlap needs the expert part eager so dispatch/combine can be
    #    interleaved with the other microbatch's compute. MCore refuses `moe` and `mlp`
    #    here ("CUDA graph scope on moe and mlp is not supported with
    #    overlap_moe_expert_parallel_comm"), so graph only what sits before dispatch:
    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_scope = None                     # recipes set it; don't mix with modules
    m.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    m.cuda_graph_warmup_steps = 3

    # 2) RNG: graphs need TE's graph-safe tracker, in both places.
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # 3) Delayed wgrad inside graphed modules.
    #    With delay_wgrad_compute the weight-gradient GEMMs are split out and replayed
    #    later by the overlap scheduler, writing into their own wgrad buffers. The fused
    #    gradient-accumulation path (wgrad GEMM accumulating straight into main_grad)
    #    would be baked into the captured backward at capture time and then collide with
    #    the deferred accumulation, so turn the fusion off for graphed + delayed wgrad.
    m.gradient_accumulation_fusion = False
    #    Attention bias isn't supported with graphed attn + delayed wgrad (yet):
    m.add_bias_linear = False
    m.add_qkv_bias = False
    #    Needs a recent Transformer Engine: >= 2.12 (2.10 was the floor before graphs
    #    were allowed to contain delayed wgrad).

    # 4) EP overlap invariants (already true if your run works eagerly):
    assert m.expert_model_parallel_size > 1
    assert m.moe_token_dispatcher_type in ("alltoall", "flex")
    assert not m.moe_shared_expert_overlap
    if m.pipeline_model_parallel_size > 1:
        assert m.virtual_pipeline_model_parallel_size is not None

    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True
    return cfg


# megatron-core 0.16/0.17: no cuda_graph_modules; use
#     m.cuda_graph_scope = ["attn", "moe_router", "moe_preprocess"]
#
# After enabling:
#   - log: "Rank N: K graphable layers." with K > 0 on each stage, then the capture time
#   - watch grad norm early: a NaN grad norm after ~80 iters was reported for TE attn
#     graphs + EP overlap (Megatron-LM#5966). Bisect by removing the graph settings.
