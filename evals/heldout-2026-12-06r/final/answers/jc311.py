# Don't patch TE's CudaRNGStatesTracker. The assert is telling you the *config* is missing the
# graph-safe RNG tracker: CUDA graphs capture the RNG state as device tensors, and only TE's tracker
# registers its generator states with the graph. The local Megatron tracker raises
# "RNG tracker does not support cudagraphs!" for the same reason. Patching TE just hides that and
# gives you dropout masks that repeat on every replay.
#
# Fix: turn the TE tracker on in BOTH places Bridge reads it.

from megatron.bridge.recipes.qwen import qwen3_30b_a3b_pretrain_config  # whatever recipe you use

cfg = qwen3_30b_a3b_pretrain_config()

cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_scope = ["attn"]          # your scope; unrelated to the error
cfg.model.use_te_rng_tracker = True            # model/provider side -> the assert in the provider
cfg.rng.te_rng_tracker = True                  # initialisation side -> which tracker is actually created

# Plain Megatron-LM equivalent: --te-rng-tracker (arguments.py turns it on by itself with the
# warning "te_rng_tracker is not enabled, enabling it for CUDA graphs.").
