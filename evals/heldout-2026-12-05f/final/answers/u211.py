"""DeepSeek-style MoE: EP A2A overlap + delayed wgrad + TE CUDA graphs (Bridge overrides).

Apply `enable_te_graphs(cfg)` to the ConfigContainer your recipe returns, then run
`check(cfg)` before training; it mirrors the upstream asserts so you fail in one
second instead of after model build.

Rules this encodes (megatron-core 0.19 / Megatron-LM validate_args):
  * With overlap_moe_expert_parallel_comm=True, only attn, moe_router and
    moe_preprocess may be graphed. `moe` and `mlp` are rejected:
    "CUDA graph scope on moe and mlp is not supported with overlap_moe_expert_parallel_comm".
  * delay_wgrad_compute with partial (TE-scoped) graphs that include attn (or the
    router with un-overlapped shared experts) needs
      - Transformer Engine >= 2.12 (MCore's TransformerConfig alone checks >= 2.10;
        Megatron-LM's argument check asks for 2.12; use 2.12+),
      - gradient_accumulation_fusion=True: the delayed wgrad must accumulate into the
        static main_grad buffers, the non-fused path doesn't have static addresses,
      - no attention bias: add_bias_linear=False and add_qkv_bias=False.
  * TE RNG tracker on (model.use_te_rng_tracker and rng.te_rng_tracker).
  * delay_wgrad_compute itself requires overlap_moe_expert_parallel_comm; EP overlap
    requires EP > 1, alltoall/flex dispatcher, bf16/fp16, no full recompute, and
    moe_shared_expert_overlap=False.

Era note: 0.18+ uses cuda_graph_modules; on 0.16-0.17 put the same list in
cuda_graph_scope and do not set cuda_graph_modules.
"""

from importlib.metadata import version

from packaging.version import Version

GRAPH_MODULES = ["attn", "moe_router", "moe_preprocess"]


def enable_te_graphs(cfg):
    m = cfg.model
    # overlap + delayed wgrad (already in your config; kept explicit)
    m.overlap_moe_expert_parallel_comm = True
    m.delay_wgrad_compute = True
    m.moe_shared_expert_overlap = False
    # CUDA graphs
    m.cuda_graph_impl = "transformer_engine"
    m.cuda_graph_scope = None               # clear the recipe's legacy key (0.18+)
    m.cuda_graph_modules = list(GRAPH_MODULES)
    m.cuda_graph_warmup_steps = 3
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    # prerequisites of delayed wgrad inside a graph
    m.gradient_accumulation_fusion = True
    m.add_bias_linear = False
    m.add_qkv_bias = False
    return cfg


def check(cfg):
    m = cfg.model
    mods = {str(getattr(x, "name", x)) for x in (m.cuda_graph_modules or [])}
    assert not ({"moe", "mlp"} & mods), "moe/mlp cannot be graphed with EP A2A overlap"
    assert mods <= {"attn", "moe_router", "moe_preprocess"}, mods
    assert "moe_preprocess" not in mods or "moe_router" in mods, "moe_preprocess needs moe_router"
    assert m.expert_model_parallel_size > 1, "EP overlap needs EP > 1"
    assert m.moe_token_dispatcher_type in ("alltoall", "flex"), m.moe_token_dispatcher_type
    assert m.recompute_granularity != "full", "no full recompute with EP overlap"
    assert m.gradient_accumulation_fusion, "delay_wgrad + graphs needs gradient_accumulation_fusion"
    assert not (m.add_bias_linear or m.add_qkv_bias), "no attention bias with delay_wgrad + attn graphs"
    assert m.use_te_rng_tracker and cfg.rng.te_rng_tracker, "TE RNG tracker required"
    te = Version(version("transformer_engine"))
    assert te >= Version("2.12"), f"TE {te} too old for delay_wgrad_compute with partial graphs"


# After launch:
#   - "Rank N: K graphable layers." with K > 0 on every PP stage, plus a capture-time line.
#   - Watch grad norm for the first few hundred steps: a NaN around iteration ~80-90 has
#     been reported with TE attn graphs + EP overlap (Megatron-LM#5966). If it shows up,
#     bisect by dropping the graph settings (cuda_graph_impl="none") with everything else fixed.
