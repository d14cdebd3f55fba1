"""Fix for: "Transformer engine's RNG tracker is required for cudagraphs, it can be enabled with
use_te_rng_tracker=True".

Short answer to "should I patch TE's CudaRNGStatesTracker?": no. The assert is correct: CUDA graphs need
graph-safe RNG state, and TE's tracker is the one that registers its generator states with the captured
graphs so dropout gets new random numbers on every replay. Megatron's own tracker can't do that (the
local graph manager asserts "RNG tracker does not support cudagraphs!"). Patching TE would hide the
problem and give you replayed/identical random masks.

The fix is configuration only: enable TE's RNG tracker on the model config and on the RNG config.
For Megatron-LM the equivalent is --te-rng-tracker (arguments.py enables it automatically for TE graphs
with the warning "te_rng_tracker is not enabled, enabling it for CUDA graphs.").

Usage: import this in your recipe script after building the ConfigContainer:

    cfg = my_recipe_config()
    enable_te_cuda_graphs(cfg)
    pretrain(cfg, forward_step)
"""


def enable_te_cuda_graphs(cfg, modules=("attn", "mlp")):
    """Turn on TE per-layer CUDA graphs with the RNG tracker they require."""
    cfg.model.cuda_graph_impl = "transformer_engine"
    # megatron-core 0.18+: modules; on 0.16-0.17 use cfg.model.cuda_graph_scope instead.
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = list(modules)
    cfg.model.cuda_graph_warmup_steps = 3

    # TE RNG tracker: required by every CUDA graph path.
    cfg.model.te_rng_tracker = True
    cfg.rng.use_te_rng_tracker = True
    return cfg


if __name__ == "__main__":
    from types import SimpleNamespace as NS

    demo = NS(model=NS(), rng=NS())
    enable_te_cuda_graphs(demo)
    print(vars(demo.model), vars(demo.rng))
