"""Full-iteration CUDA graph for Megatron Bridge on megatron-core 0.16.1, as a Cerberus-checked
override dict you apply to the recipe's ConfigContainer.

On 0.16/0.17 there is no cuda_graph_impl="full_iteration" (the allowed values are "none",
"local", "transformer_engine"; anything else trips "Invalid cuda graph implementation") and no
cuda_graph_modules key. One graph for the whole forward+backward is spelled:

    cuda_graph_impl = "local"  +  cuda_graph_scope = ["full_iteration"]

("full_iteration" with the transformer_engine impl asserts: "To use full iteration cuda graph,
please use cuda_graph_impl=local instead of cuda_graph_impl=transformer_engine.")
The captured step must not sync with the host, so both NaN checks go off. The optimizer step
stays outside the graph.
"""
from cerberus import Validator

FULL_ITERATION_016 = {
    "model": {
        "cuda_graph_impl": "local",
        "cuda_graph_scope": ["full_iteration"],   # listed alone
        "cuda_graph_warmup_steps": 3,
        "use_te_rng_tracker": True,
    },
    "rng": {"te_rng_tracker": True},
    "rerun_state_machine": {"check_for_nan_in_loss": False},
    "ddp": {"check_for_nan_in_grad": False},
}

SCHEMA_016 = {
    "model": {
        "type": "dict",
        "schema": {
            "cuda_graph_impl": {"type": "string", "allowed": ["local"]},          # not "full_iteration" on 0.16
            "cuda_graph_scope": {"type": "list", "allowed": ["full_iteration"], "minlength": 1, "maxlength": 1},
            "cuda_graph_warmup_steps": {"type": "integer", "min": 1},
            "use_te_rng_tracker": {"type": "boolean", "allowed": [True]},
        },
    },
    "rng": {"type": "dict", "schema": {"te_rng_tracker": {"type": "boolean", "allowed": [True]}}},
    "rerun_state_machine": {"type": "dict", "schema": {"check_for_nan_in_loss": {"type": "boolean", "allowed": [False]}}},
    "ddp": {"type": "dict", "schema": {"check_for_nan_in_grad": {"type": "boolean", "allowed": [False]}}},
}


def apply_full_iteration(cfg):
    v = Validator(SCHEMA_016, allow_unknown=False)
    if not v.validate(FULL_ITERATION_016):
        raise ValueError(v.errors)
    for section, values in FULL_ITERATION_016.items():
        target = getattr(cfg, section)
        for key, value in values.items():
            setattr(target, key, value)
    return cfg

# Usage:
#   cfg = llama31_8b_pretrain_config()      # or your recipe
#   apply_full_iteration(cfg)
#   pretrain(cfg, forward_step)
#
# Keep seq_length and micro-batch size fixed. The log should show
# "Capture CUDA graph for training!!!" and "CUDA graph capture done for training!!!".
# Compare post-capture iterations against eager, never the capture step.
# Dropless-MoE models can't use this (the token dispatcher syncs with the host); dense is fine.
# When you later move to 0.18+, this becomes cuda_graph_impl="full_iteration", cuda_graph_modules=[].
