"""DeepSeek-style MoE with EP A2A overlap + delayed wgrad + TE CUDA graphs (Megatron Bridge).

Drop this into your recipe after the ConfigContainer is built.
"""


def enable_graphs_with_ep_overlap(cfg):
    model = cfg.model

    # --- EP all-to-all overlap + delayed weight-gradient --------------------------------------
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True
    model.moe_token_dispatcher_type = "alltoall"      # "flex" also works with overlap
    model.moe_shared_expert_overlap = False           # mutually exclusive with EP A2A overlap

    # Delayed wgrad inside a graph writes straight into main_grad, so those buffers must have
    # static addresses -> fused gradient accumulation is mandatory. TE >= 2.12 required.
    model.gradient_accumulation_fusion = True
    model.add_bias_linear = False                     # attn bias unsupported with graphed delayed wgrad
    model.add_qkv_bias = False

    # --- CUDA graphs ----------------------------------------------------------------------------
    # The routed-expert compute ("moe") holds the overlapped A2A, so it must stay eager. Everything
    # around it can be captured:
    #   attn            - attention block of every layer
    #   moe_router      - gating / top-k
    #   moe_preprocess  - token permutation bookkeeping before dispatch
    #   mlp             - DeepSeek's first-k dense layers (no A2A there, so safe to graph; these
    #                     are the most launch-bound layers of the stack)
    model.cuda_graph_impl = "transformer_engine"
    model.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess", "mlp"]  # 0.16/0.17: cuda_graph_scope
    model.cuda_graph_warmup_steps = 3
    model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    return cfg


# Before a long run:
#   python -c "import transformer_engine as te; print(te.__version__)"   # need >= 2.12
#   check the log for "graphable layers" on every PP stage and "Time spent in CUDA Graphs capture"
#   A/B vs cuda_graph_impl="none": steady-state step time + loss, same seed
#   keep an eye on grad norm early on - NaNs after ~80 iters were reported with attn graphs + EP
#   overlap (Megatron-LM #5966); if it happens, remove the graph settings first to bisect.
