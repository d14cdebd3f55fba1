# Migration of the two CUDA-graph recipes: megatron-core 0.16 -> 0.19 (Bridge)
#
# Background: 0.18 split the old `cuda_graph_scope` into
#   * cuda_graph_impl="full_iteration"   (was: local + scope ["full_iteration"])
#   * cuda_graph_modules=[...]           (was: cuda_graph_scope=[...] for per-layer graphs)
# and `enable_cuda_graph` has long been a deprecated alias for cuda_graph_impl="local".
# 0.19 still migrates the old spellings in TransformerConfig.__post_init__ with a
# DeprecationWarning ("cuda_graph_scope is deprecated, use cuda_graph_modules instead."),
# but write the new keys so the configs are clean.


def recipe_1_full_iteration(cfg):
    # OLD (0.16):
    #   cfg.model.enable_cuda_graph = True
    #   cfg.model.cuda_graph_scope = ["full_iteration"]
    cfg.model.enable_cuda_graph = False            # deprecated; never combine with cuda_graph_impl
    cfg.model.cuda_graph_impl = "full_iteration"
    cfg.model.cuda_graph_scope = None
    cfg.model.cuda_graph_modules = []              # must be empty with full_iteration
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    # full-iteration graphs can't contain the NaN checks' host syncs
    cfg.rerun_state_machine.check_for_nan_in_loss = False
    cfg.ddp.check_for_nan_in_grad = False
    return cfg


def recipe_2_te_scoped(cfg):
    # OLD (0.16):
    #   cfg.model.cuda_graph_impl = "transformer_engine"
    #   cfg.model.cuda_graph_scope = ["attn", "moe_router"]
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_modules = ["attn", "moe_router"]
    # Keep the deprecated key populated with the same list while both images are in
    # rotation: 0.19 takes cuda_graph_modules when it is set and only warns about the
    # old key, and the 0.16 image keeps reading cuda_graph_scope. Delete this line once
    # the 0.16 image is retired.
    cfg.model.cuda_graph_scope = ["attn", "moe_router"]
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg


# After migrating, check the logs of one short run per recipe:
#   recipe 1: "Capture CUDA graph for training!!!" / "CUDA graph capture done for training!!!"
#   recipe 2: "graphable layers" + "Time spent in CUDA Graphs capture"
# and compare post-capture step times with the 0.16 baseline on the same hardware.
