# megatron-core 0.16.1 + Megatron Bridge: TE-scoped CUDA graphs on attention + MLP (dense GPT)
#
# 0.16/0.17 only have `cuda_graph_scope` (a list of CudaGraphScope names).
# `cuda_graph_modules` and cuda_graph_impl="full_iteration" don't exist until 0.18,
# so don't paste those from newer examples.

def enable_te_scoped_graphs(cfg):
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["attn", "mlp"]   # both are per-layer TE graphs; "mlp" = dense MLP
    cfg.model.cuda_graph_warmup_steps = 3          # eager warmup steps before capture (default 3)

    # Graph-safe RNG: required whenever CUDA graphs are on
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg

# Usage:
#   cfg = enable_te_scoped_graphs(my_gpt_recipe())
#
# CLI override equivalent (Hydra-style overrides in Bridge scripts):
#   model.cuda_graph_impl=transformer_engine \
#   model.cuda_graph_scope='[attn,mlp]' \
#   model.cuda_graph_warmup_steps=3 \
#   model.use_te_rng_tracker=true \
#   rng.te_rng_tracker=true
#
# Things to keep:
#   - fixed seq_length and micro_batch_size (graphs replay static buffers)
#   - no cpu_offloading (rejected with any CUDA graph)
#   - don't mix in "full_iteration": on 0.16 that needs cuda_graph_impl="local"
#     and is a different mode entirely
#   - if you use PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, also export NCCL_GRAPH_REGISTER=0
