"""TE CUDA graphs for a DeepSeek-style MoE with EP A2A overlap + delayed wgrad.

Target: megatron-core 0.18/0.19 + Megatron Bridge (0.16/0.17: use cuda_graph_scope
instead of cuda_graph_modules, same values).

What's allowed with overlap_moe_expert_parallel_comm=True:
  - graph only attn, moe_router, moe_preprocess. MCore asserts
    "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm",
    so no "moe", no "mlp", and no empty list (= whole layer, which includes the MoE).
What delay_wgrad_compute adds once attn (or moe_router with non-overlapped shared
experts) is graphed, because the delayed wgrad of those layers then runs inside graphs:
  - Transformer Engine >= 2.12 (TransformerConfig alone only asks for 2.10, but the
    Bridge/Megatron-LM check for graphed wgrad is 2.12)
  - gradient_accumulation_fusion=True: wgrad has to accumulate into the static
    main_grad buffers; the non-fused path allocates fresh tensors every step
  - no attention bias (add_bias_linear=False, add_qkv_bias=False)
"""


def add_te_graphs_for_ep_overlap(cfg):
    m = cfg.model

    # --- existing overlap setup (unchanged, listed for completeness) -------------------
    m.overlap_moe_expert_parallel_comm = True    # needs EP>1, alltoall/flex dispatcher, bf16
    m.delay_wgrad_compute = True
    m.moe_shared_expert_overlap = False          # must be off with EP A2A overlap
    # (if you set these via cfg.comm_overlap instead, Bridge runs the same checks there)

    # --- prerequisites for graphed delayed wgrad ---------------------------------------
    m.gradient_accumulation_fusion = True
    m.add_bias_linear = False
    m.add_qkv_bias = False

    # --- CUDA graphs ---------------------------------------------------------------------
    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_scope = None                    # stock recipes set it; clear before modules
    m.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    m.cuda_graph_warmup_steps = 3
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # overlap also rules out full recompute / recompute of "moe"; selective core_attn is fine
    # as long as it doesn't wrap a graphed module with dropout inside.
    return cfg


def check_te():
    import transformer_engine as te
    from packaging.version import Version

    v = Version(te.__version__.split("+")[0])
    assert v >= Version("2.12"), f"TE {v}: graphed delay_wgrad_compute needs >= 2.12"


# Validation plan (do this, it matters for this combo):
# 1. Eager run with overlap + delayed wgrad, ~200 steps, log grad norm and loss.
# 2. Same seed with the graph config above. Confirm "Rank N: K graphable layers." (K > 0)
#    on every PP stage and the capture-time line.
# 3. Compare grad norm step by step, not just loss. There is an open report of
#    grad norm going NaN after ~80 iterations with TE attn graphs + EP overlap
#    (Megatron-LM#5966). If you see it, bisect by dropping the graph flags first
#    (then delay_wgrad_compute) before blaming the data.
