"""Enable TE-scoped CUDA graphs (attention + MLP) on a dense GPT Bridge recipe.

Cluster pin: megatron-core 0.16.1 + Megatron Bridge.
Call apply_cuda_graph_overrides(cfg) right after building the recipe's ConfigContainer
and before handing it to pretrain().
"""

# Model-level keys, applied in one place so the diff against the stock recipe stays obvious.
MODEL_OVERRIDES = {
    "cuda_graph_impl": "transformer_engine",   # TE make_graphed_callables, one graph set per layer
    "cuda_graph_modules": ["attn", "mlp"],     # capture attention and the dense MLP of every layer
    "cuda_graph_warmup_steps": 3,              # eager steps before capture (MCore default)
    "use_te_rng_tracker": True,                # graph-safe RNG: required with any CUDA graph
}

RNG_OVERRIDES = {
    "te_rng_tracker": True,                    # keep rng config in sync with the model flag
}


def apply_cuda_graph_overrides(cfg):
    for key, value in MODEL_OVERRIDES.items():
        setattr(cfg.model, key, value)
    for key, value in RNG_OVERRIDES.items():
        setattr(cfg.rng, key, value)
    return cfg


# Notes
# - Keep seq_length and micro_batch_size fixed for the whole run.
# - Do not use cuda_graph_impl="full_iteration" here; that value does not exist before 0.18.
#   (Full-iteration capture on this pin would be "local" + ["full_iteration"], a separate path.)
# - Verify: the log prints the number of graphable layers and "Start CUDA Graphs capture...";
#   compare replay steps after capture against eager, not the capture step.
