# bridge_overrides.py — fix for:
#   AssertionError: check_for_nan_in_loss must be disabled when using full_iteration
#   CUDA graph. Set rerun_state_machine.check_for_nan_in_loss=False.
#
# A full-iteration graph captures forward + backward + optimizer as one replay; the
# loss/grad NaN checks read values back to the host mid-step (a CPU-GPU sync), which
# capture cannot contain. Turn both checks off. While touching the graph config, use
# the dedicated full-iteration implementation instead of the local+scope spelling:
# it is the same capture without the scope-list indirection.

OVERRIDES = {
    # graph: dedicated full-iteration impl, no per-module list
    "model.cuda_graph_impl": "full_iteration",
    "model.cuda_graph_scope": [],
    "model.use_te_rng_tracker": True,
    "rng.te_rng_tracker": True,
    # NaN checks: both must be off under a full-iteration graph
    "rerun_state_machine.check_for_nan_in_loss": False,
    "ddp.check_for_nan_in_grad": False,
}


def apply(cfg):
    for dotted, value in OVERRIDES.items():
        obj = cfg
        *parents, leaf = dotted.split(".")
        for p in parents:
            obj = getattr(obj, p)
        setattr(obj, leaf, value)
    return cfg

# Megatron-LM CLI equivalent:
#   --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad --te-rng-tracker
