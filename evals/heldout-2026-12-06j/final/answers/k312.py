# recipe tail — fixes "Transformer engine's RNG tracker is required for cudagraphs,
# it can be enabled with use_te_rng_tracker=True'."
#
# Short answer to "should I patch TE's CudaRNGStatesTracker?": no.
# The assert is deliberate. Graph replay re-runs the recorded kernels, so dropout
# inside the captured region must take its seed/offset from generator state that
# is registered with the graph and advanced on every replay. TE's tracker does
# that; MCore's default tracker does not (MCore's local graphs refuse it too:
# "RNG tracker does not support cudagraphs!"). Patching TE to silence the check
# would give you replays with wrong/repeated dropout masks.
#
# Megatron-LM users: --te-rng-tracker (arguments.py auto-enables it with a warning
# "te_rng_tracker is not enabled, enabling it for CUDA graphs.").

from megatron.bridge.training.config import ConfigContainer


def enable_te_graphs(cfg: ConfigContainer) -> ConfigContainer:
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn"]   # megatron-core 0.19; on 0.16/0.17 use cuda_graph_scope

    # TE RNG tracker, both sides:
    cfg.model.te_rng_tracker = True        # layers use TE's graph-safe tracker
    cfg.rng.use_te_rng_tracker = True      # RNG init seeds the TE tracker

    return cfg


# Hydra form, if you launch with overrides instead:
#   model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn] \
#   model.te_rng_tracker=true rng.use_te_rng_tracker=true
