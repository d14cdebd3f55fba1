# CUDA graphs: TE-scoped capture on attention + MLP for a dense GPT model.
# Target: megatron-core 0.16.1 + the Megatron Bridge release that pins it (Bridge 0.3.x, mcore <0.17).
#
# On 0.16/0.17 the per-layer coverage key is `cuda_graph_scope`.
# `cuda_graph_modules` and cuda_graph_impl="full_iteration" only exist from 0.18 on,
# so do NOT copy those from newer examples.

import megatron.core
from megatron.bridge.recipes.llama import llama31_8b_pretrain_config  # or your own dense GPT recipe

assert megatron.core.__version__.startswith(("0.16", "0.17")), (
    f"these keys are for mcore 0.16/0.17, found {megatron.core.__version__}; "
    "on 0.18+ use cuda_graph_modules instead of cuda_graph_scope"
)

cfg = llama31_8b_pretrain_config()

# --- CUDA graphs (0.16.x spelling) ------------------------------------------
cfg.model.cuda_graph_impl = "transformer_engine"   # TE make_graphed_callables per layer
cfg.model.cuda_graph_scope = ["attn", "mlp"]       # list; converted to CudaGraphScope enums in post-init
cfg.model.cuda_graph_warmup_steps = 3              # eager warmup iterations before capture

# --- graph-safe RNG (required) ------------------------------------------------
cfg.model.use_te_rng_tracker = True                # Bridge's GPT provider asserts this when graphs are on
cfg.rng.te_rng_tracker = True

# --- things that must stay compatible ----------------------------------------
# static shapes: fixed seq length and micro batch size for the whole run
assert cfg.model.seq_length == cfg.dataset.seq_length
# TE-scoped graphs + full recompute -> "full recompute is only supported with full iteration CUDA graph."
assert cfg.model.recompute_granularity != "full", "use selective recompute (or none) with TE-scoped graphs"
# CPU offloading is not supported with CUDA graphs
assert not cfg.model.cpu_offloading

# If you launch with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, also export NCCL_GRAPH_REGISTER=0.
#
# Why this validates on 0.16.1:
#   - "transformer_engine" is one of {"none", "local", "transformer_engine"}
#   - "mlp" is allowed because num_moe_experts is None (dense); "moe"/"moe_router" would be rejected
#   - "full_iteration" is not in the list (that one needs cuda_graph_impl="local")
#
# Benchmark: compare post-capture iterations (after the 3 warmup steps) with the same window of an eager run.
