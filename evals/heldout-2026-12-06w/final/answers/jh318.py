# Pre-launch check: `skill-tools validate recipe.py --mcore-version 0.19.2`
#
# Findings on the config as given (cuda_graph_impl=transformer_engine,
# cuda_graph_scope=[moe, moe_router], use_te_rng_tracker=False, mcore 0.19):
#
#   error   moe-and-moe-router         'moe' (whole MoE block) and 'moe_router' (part of it) in the
#                                      same scope -> MCore asserts
#                                      "cuda_graph_modules must not contain both moe and moe_router."
#   error   moe-scope-needs-drop-pad   'moe' needs drop-and-pad (capacity factor + pad to capacity);
#                                      dropless MoE can only graph router + preprocess
#   error   te-rng-tracker-required    any cuda_graph_impl != "none" needs TE's RNG tracker
#                                      (Bridge: "Transformer engine's RNG tracker is required for
#                                      cudagraphs, it can be enabled with use_te_rng_tracker=True'.")
#   warning deprecated-cuda-graph-scope  cuda_graph_scope is the 0.16-0.17 key; 0.19 uses
#                                      cuda_graph_modules
#
# Corrected block for megatron-core 0.19 (dropless MoE). The deprecated key is kept populated with
# the same list so that the recipe still loads on the 0.16/0.17 containers we also run on; 0.19
# reads cuda_graph_modules and only warns about the old key.

def apply_cuda_graphs(cfg):
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["moe_router", "moe_preprocess"]    # back-compat for 0.16/0.17
    cfg.model.cuda_graph_modules = ["moe_router", "moe_preprocess"]  # 0.18+ key
    cfg.model.cuda_graph_warmup_steps = 3
    cfg.model.use_te_rng_tracker = True
    cfg.rng.te_rng_tracker = True
    return cfg

# If the model is drop-and-pad (moe_expert_capacity_factor set, moe_pad_expert_input_to_capacity=True),
# use ["moe"] alone instead of the router pair.
#
# After editing, re-run:
#   skill-tools validate recipe.py --mcore-version 0.19.2 --json   # expect "ok": true
# and then A/B against eager on steady-state iterations (skill-tools bench / skill-tools logs).
