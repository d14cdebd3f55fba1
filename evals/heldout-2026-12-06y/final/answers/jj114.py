"""CUDA-graph settings for the 0.16 -> 0.19 upgrade.

Both recipes go through one helper so the same file works on the old and the new image:
megatron-core 0.19 reads cuda_graph_modules and treats the deprecated cuda_graph_scope as a
fallback, while 0.16 only reads cuda_graph_scope and ignores the extra attribute. Setting
both keys keeps the recipes portable during the rollout.
"""


def apply_full_iteration(cfg):
    """Recipe 1: was enable_cuda_graph=True + cuda_graph_scope=["full_iteration"]."""
    # enable_cuda_graph is deprecated (it just meant impl="local"); drop it, because
    # leaving it True next to an explicit cuda_graph_impl asserts.
    cfg.model.enable_cuda_graph = False
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_modules = []           # full_iteration takes no per-layer modules
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    # NaN checks sync with the host and can't sit inside a full-iteration graph
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


def apply_te_scoped(cfg, modules=("attn", "moe_router")):
    """Recipe 2: TE impl stays, the list moves to cuda_graph_modules."""
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = list(modules)  # 0.18+ name, takes precedence on 0.19
    cfg.model.cuda_graph_scope = list(modules)    # legacy name, kept for the 0.16 image
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# On 0.19 you will see "cuda_graph_scope is deprecated, use cuda_graph_modules instead."
# for recipe 2 until the 0.16 image is retired. Then delete the cuda_graph_scope line.
