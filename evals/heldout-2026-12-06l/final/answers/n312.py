"""Don't patch TE's CudaRNGStatesTracker - the assert is doing its job.

CUDA graphs freeze whatever RNG state they see at capture time. To get fresh dropout masks on
every replay the RNG state must be graph-safe: TE's tracker registers its generator states with
the graph so the Philox offsets advance per replay. Bridge's GPTModelProvider.finalize() therefore
asserts `use_te_rng_tracker` whenever `cuda_graph_impl != "none"`. MCore's own local graph manager
refuses a non-graphable tracker for the same reason ("RNG tracker does not support cudagraphs!"),
and Megatron-LM's arguments.py just turns `--te-rng-tracker` on for you with the warning
"te_rng_tracker is not enabled, enabling it for CUDA graphs."

Patching TE to skip the check would silently replay identical RNG streams (same dropout mask every
step) - a numerics bug you would not see in the logs. Set the two keys instead.
"""

from megatron.bridge.training.config import ConfigContainer


def with_te_cuda_graphs(cfg: ConfigContainer, modules=("attn",)) -> ConfigContainer:
    """Enable TE-scoped CUDA graphs on a Bridge recipe config, with graph-safe RNG."""
    m = cfg.model
    m.cuda_graph_impl = "transformer_engine"
    # megatron-core >= 0.18: cuda_graph_modules; on 0.16/0.17 use m.cuda_graph_scope = list(modules)
    m.cuda_graph_modules = list(modules)
    m.cuda_graph_scope = None
    m.cuda_graph_warmup_steps = 3

    # The fix for the assert: both RNG keys (Bridge keeps them in sync, set both to be explicit)
    m.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


def preflight(cfg: ConfigContainer) -> None:
    """Fail fast on the login node instead of after job start."""
    assert cfg.model.use_te_rng_tracker and cfg.rng.te_rng_tracker, "TE RNG tracker must be on for CUDA graphs"
    cfg.validate()   # runs the provider/ConfigContainer checks, incl. the RNG-tracker assert


# usage with any recipe, e.g.
#   from megatron.bridge.recipes.qwen import qwen3_30b_a3b_pretrain_config
#   cfg = with_te_cuda_graphs(qwen3_30b_a3b_pretrain_config(), modules=("attn",))
#   preflight(cfg)
#
# Hydra-style overrides for the same thing:
#   model.cuda_graph_impl=transformer_engine model.cuda_graph_modules=[attn]
#   model.use_te_rng_tracker=true rng.te_rng_tracker=true
#
# Megatron-LM equivalent: --cuda-graph-impl transformer_engine --cuda-graph-modules attn --te-rng-tracker
