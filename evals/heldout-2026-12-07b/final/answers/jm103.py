# TE-scoped CUDA graphs (attention + MLP) for a dense GPT model
# Megatron Bridge on megatron-core 0.16.1
#
# Add after the recipe builds `cfg` (ConfigContainer):

cfg.model.cuda_graph_impl = "transformer_engine"   # per-layer graphs via TE make_graphed_callables()
cfg.model.cuda_graph_modules = ["attn", "mlp"]     # which parts of each TransformerLayer get captured;
                                                   # [] = whole layer
cfg.model.cuda_graph_warmup_steps = 3              # eager steps before capture (default is 3)

# Graph-safe RNG: Bridge asserts this for any cuda_graph_impl != "none"
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# Notes
# - cuda_graph_modules is the per-layer coverage list for both the "local" and
#   "transformer_engine" impls; cuda_graph_scope is only the legacy "full"/full_iteration switch,
#   so leave whatever the recipe put there.
# - Keep seq_length and micro_batch_size fixed for the whole run; graphs replay static shapes.
# - "mlp" only applies to dense MLP layers, which is what a dense GPT has.
# - Measure steady-state step time after the capture step against an eager run before keeping it.
