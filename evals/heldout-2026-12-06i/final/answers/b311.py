"""
No - don't patch TE's CudaRNGStatesTracker.

The assertion is not a TE bug; it is Megatron/Bridge telling you the RNG state used
inside the captured region is not graph-safe. A CUDA graph replays kernels with the
generator state they were captured with unless the generator is *registered* with the
graph; TE's tracker is the one MCore knows how to register (and the local manager has
the same requirement - it asserts "RNG tracker does not support cudagraphs!" otherwise).
Patching the TE class to silence the check just gives you dropout masks that repeat on
every replay.

The fix is config-only. Put it in the recipe's post-init so every launch gets it.
"""

from megatron.bridge.recipes.qwen import qwen3_30b_a3b_pretrain_config  # or your recipe
from megatron.bridge.training.config import ConfigContainer


def _graph_rng_post_init(cfg: ConfigContainer) -> ConfigContainer:
    """Turn on the TE RNG tracker whenever CUDA graphs are enabled."""
    if cfg.model.cuda_graph_impl != "none":
        # TE RNG tracker on the model side (what GPTModelProvider checks) ...
        cfg.model.te_rng_tracker = True
        # ... and on the RNG init side (what initialize.py uses to build the tracker)
        cfg.rng.use_te_rng_tracker = True
    return cfg


def pretrain_config_with_graphs(**kwargs) -> ConfigContainer:
    cfg = qwen3_30b_a3b_pretrain_config(**kwargs)
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]  # megatron-core 0.18+; on 0.16/0.17 use cuda_graph_scope
    return _graph_rng_post_init(cfg)


# Megatron-LM (non-Bridge) equivalent: pass --te-rng-tracker. On recent MLM,
# arguments.py even flips it on for you with the warning
#   "te_rng_tracker is not enabled, enabling it for CUDA graphs."
