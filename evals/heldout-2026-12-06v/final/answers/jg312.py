"""Fix for: "Transformer engine's RNG tracker is required for cudagraphs, it can be enabled with
use_te_rng_tracker=True'."

Short answer: no, don't patch TE's CudaRNGStatesTracker. The assert exists because a CUDA graph
bakes RNG offsets into the captured kernels; only Transformer Engine's tracker registers its
generator state with the graph so dropout masks advance correctly on every replay. Patching the
class to get past the check gives you a run that *starts* but replays the same (or stale) dropout
masks — silent numerics damage, worse than the assert.

The supported fix is configuration only. Bridge splits the switch in two: the model provider has
the tracker flag that the assert reads, and the RNG section controls which tracker is actually
initialised at startup. Set both.
"""

from megatron.bridge.training.config import ConfigContainer


def enable_graph_safe_rng(cfg: ConfigContainer) -> ConfigContainer:
    # provider-side flag checked in GPTModelProvider.provide() before the model is built
    cfg.model.te_rng_tracker = True
    # runtime side: initialise TE's CudaRNGStatesTracker instead of Megatron's local one
    cfg.rng.use_te_rng_tracker = True
    return cfg


# In your recipe / launch script:
#
#   cfg = my_recipe_config()
#   cfg.model.cuda_graph_impl = "transformer_engine"
#   cfg = enable_graph_safe_rng(cfg)
#
# Megatron-LM equivalent: --te-rng-tracker (Megatron-LM turns it on by itself when TE is the
# transformer impl or the graph impl, with the warning
# "te_rng_tracker is not enabled, enabling it for CUDA graphs.").
#
# After the change the assert is gone at model build; confirm capture in the log
# ("Rank 0: N graphable layers.", "Start CUDA Graphs capture...") and that loss matches an eager
# run with the same seed.
