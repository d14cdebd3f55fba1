# Don't patch TE's CudaRNGStatesTracker: the assert is telling you to use it.
# CUDA graphs need graph-safe RNG state (dropout inside captured regions).
overrides = [
    "model.use_te_rng_tracker=true",
    "rng.te_rng_tracker=true",
]
# Megatron-LM equivalent: --te-rng-tracker (arguments.py also turns it on for graphs with a warning).
