# No — don't patch TE's CudaRNGStatesTracker. The assert is doing its job.
#
# A captured graph replays the same kernels with the same *device-side* RNG state pointers.
# TE's tracker registers its generator states so they are graph-safe (advanced per replay);
# Megatron's local tracker can't do that, which is why the local manager also refuses with
# "RNG tracker does not support cudagraphs!". Patching TE around the check would give you
# identical dropout masks on every replay (or a capture error) instead of a clear message.
#
# Fix: turn the TE RNG tracker on in BOTH places Bridge reads it.

cfg = my_recipe_config()   # whatever recipe function builds your ConfigContainer

cfg.model.cuda_graph_impl = "transformer_engine"
cfg.model.cuda_graph_modules = ["attn", "mlp"]   # megatron-core 0.18+; on 0.16-0.17 use cuda_graph_scope
cfg.model.cuda_graph_scope = None                # don't leave the recipe's scope set next to modules
cfg.model.use_te_rng_tracker = True              # model side (GPTModelProvider asserts this)
cfg.rng.te_rng_tracker = True                    # RNG init side

# Megatron-LM equivalent: --te-rng-tracker (arguments.py turns it on by itself with
# "te_rng_tracker is not enabled, enabling it for CUDA graphs.")
