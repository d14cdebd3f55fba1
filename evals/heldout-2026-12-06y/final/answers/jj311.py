# No, don't patch TE's CudaRNGStatesTracker. The assert is doing its job.
#
# CUDA graphs replay a fixed kernel sequence. Dropout etc. need RNG state that advances
# *inside* the graph (graph-safe generator state registered with the capture), otherwise every
# replay reuses the same offsets. TE's tracker provides that. Megatron's local tracker without
# cudagraph support can't, which is also why MCore's local path raises
# "RNG tracker does not support cudagraphs!". Patching TE to skip the check just gives you
# silently wrong dropout masks.
#
# Fix: turn the TE RNG tracker on, in BOTH places Bridge reads it.

from megatron.bridge.training.config import ConfigContainer


def enable_te_graphs(cfg: ConfigContainer) -> ConfigContainer:
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.use_te_rng_tracker = True   # checked by GPTModelProvider (the assert you hit)
    cfg.rng.te_rng_tracker = True         # used when the RNG trackers are initialised
    return cfg

# YAML / Hydra equivalent:
#   model.use_te_rng_tracker=true rng.te_rng_tracker=true
#
# Megatron-LM (pretrain_gpt.py): --te-rng-tracker. arguments.py turns it on for you when TE is
# the transformer or graph impl and warns "te_rng_tracker is not enabled, enabling it for CUDA graphs."
#
# Then run `skill-tools validate --json <your config>` to check the rest of the graph settings
# before launching.
