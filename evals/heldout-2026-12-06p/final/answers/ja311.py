# Don't patch TE's CudaRNGStatesTracker. The assert is doing its job: CUDA graphs need
# graph-safe RNG state, and only TE's tracker provides it (MCore's local tracker refuses
# with "RNG tracker does not support cudagraphs!" for the same reason). Patching TE to
# silence it just gets you non-reproducible / wrong dropout masks on replay.
#
# Turn the TE tracker on in BOTH places Bridge reads it:
#   - model.use_te_rng_tracker  -> what GPTModelProvider asserts on
#   - rng.te_rng_tracker        -> what initialize() uses to set up the RNG tracker
# (Plain Megatron-LM: --te-rng-tracker; arguments.py turns it on for you and warns
#  "te_rng_tracker is not enabled, enabling it for CUDA graphs.")

def apply_cuda_graph_rng(cfg):
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg

# Hydra-style equivalent on the command line:
#   model.use_te_rng_tracker=true rng.te_rng_tracker=true
