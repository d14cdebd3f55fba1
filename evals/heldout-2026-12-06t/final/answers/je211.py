"""TE CUDA graphs on a DeepSeek-style MoE with EP A2A overlap + delayed wgrad (Megatron Bridge).

Checklist (what MCore / Bridge check, and why):

Scopes
  * Only ``attn``, ``moe_router``, ``moe_preprocess`` are allowed with
    overlap_moe_expert_parallel_comm. ``moe`` and ``mlp`` are refused:
    "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm".
    Empty modules (= whole layer) fails as well, at replay: "EP overlap must be disabled when
    CUDA graph captures the whole MLP/MoE part."
  * ``moe_preprocess`` needs ``moe_router``. With the alltoall dispatcher it is also refused when
    a capacity factor or moe_router_padding_for_fp8 is set (DtoH sync in preprocess); in that case
    graph ``attn`` + ``moe_router`` only.

delay_wgrad_compute inside graphs
  * The delayed weight-gradient GEMMs of graphed modules have to write into static ``main_grad``
    buffers, so when attn is graphed (or moe_router on a model with shared experts, as DeepSeek
    has: EP overlap forbids moe_shared_expert_overlap, so the shared experts sit inside the router
    graph):
      - Transformer Engine >= 2.12  (older MCore checked >= 2.10 for partial graphs)
      - gradient_accumulation_fusion=True
      - no attention bias: add_bias_linear=False, add_qkv_bias=False
  * delay_wgrad_compute itself requires overlap_moe_expert_parallel_comm.

EP A2A overlap prerequisites (independent of graphs)
  * expert_model_parallel_size > 1, dispatcher alltoall or flex, bf16/fp16 params, torch >= 2.6
  * no full recompute, no recompute_method/num_layers, "moe" not in recompute_modules
  * moe_shared_expert_overlap=False, at most one MTP layer
  * PP > 1 needs virtual pipeline (VPP) set

Graphs in general
  * TE RNG tracker on (model.use_te_rng_tracker and rng.te_rng_tracker).
  * Keep seq_length and micro-batch size static.

Keys below are the megatron-core 0.18+ spelling. On 0.16-0.17 write
``cfg.model.cuda_graph_scope = ["attn", "moe_router", "moe_preprocess"]`` and do not set
``cuda_graph_modules``.
"""

from megatron.bridge.training.comm_overlap import CommOverlapConfig


def enable_te_graphs_with_ep_overlap(cfg):
    m = cfg.model

    # ---- CUDA graphs ---------------------------------------------------------------------
    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_scope = None  # stock recipes set a scope; with cuda_graph_modules too, 0.18+ asserts
    m.cuda_graph_modules = ["attn", "moe_router", "moe_preprocess"]
    m.cuda_graph_warmup_steps = 3
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True

    # ---- what delayed wgrad inside the graphs needs ---------------------------------------
    m.gradient_accumulation_fusion = True
    m.add_bias_linear = False
    m.add_qkv_bias = False

    # ---- EP A2A overlap + delayed wgrad ---------------------------------------------------
    if cfg.comm_overlap is None:
        cfg.comm_overlap = CommOverlapConfig(tp_comm_overlap=False)
    cfg.comm_overlap.overlap_moe_expert_parallel_comm = True
    cfg.comm_overlap.delay_wgrad_compute = True

    assert m.expert_model_parallel_size > 1, "EP overlap needs EP > 1"
    assert m.moe_token_dispatcher_type in ("alltoall", "flex")
    assert m.recompute_granularity != "full", "EP overlap refuses full recompute"
    m.moe_shared_expert_overlap = False
    if m.pipeline_model_parallel_size > 1:
        assert m.virtual_pipeline_model_parallel_size is not None, "EP overlap with PP needs VPP"
    return cfg


# Before trusting it:
#   python -c "import transformer_engine as te; print(te.__version__)"   # must be >= 2.12
#   1. eager run with the same overlap settings (cuda_graph_impl="none"), fixed seed
#   2. graphs on: log must show "Rank N: K graphable layers." with K > 0 on every PP stage and
#      the capture time line; compare steady-state step time and the loss curve to (1)
#   3. watch grad norm for the first ~100+ iterations: Megatron-LM#5966 reports grad-norm
#      spikes and a NaN around iteration 90 with TE attn graphs + EP overlap that disappear
#      when the graph flags are removed. If you see that, bisect by dropping the graph flags
#      (then attn alone) before touching anything else.
