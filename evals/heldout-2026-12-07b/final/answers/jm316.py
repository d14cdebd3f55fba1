# Review of your CUDA-graph settings (megatron-core 0.19, Bridge), checked with
#   skill-tools validate --json cfg.yaml --mcore-version 0.19.2
#
# Findings:
#   [error]   moe-and-moe-router: 'moe' already contains the router; MCore asserts
#             "cuda_graph_modules must not contain both moe and moe_router."
#   [error]   moe-scope-needs-drop-pad: 'moe' needs drop-and-pad MoE; yours is dropless
#             (no moe_expert_capacity_factor), so capture router + preprocess instead.
#   [warning] deprecated-cuda-graph-scope: cuda_graph_scope is the 0.16-0.17 key; 0.19 migrates it
#             to cuda_graph_modules with a DeprecationWarning.
#   [info]    te-rng-tracker-required: any CUDA graph needs TE's RNG tracker; Bridge's GPT provider
#             asserts "Transformer engine's RNG tracker is required for cudagraphs".
#
# Fixed settings for your recipe (ConfigContainer `cfg`):

cfg.model.cuda_graph_impl = "transformer_engine"

# 0.18+ key. moe_preprocess is only valid together with moe_router.
cfg.model.cuda_graph_modules = ["moe_router", "moe_preprocess"]

# Keep the legacy key in sync with the same list so the config also loads unchanged on
# 0.16/0.17 containers (they don't know cuda_graph_modules); on 0.19 it's just migrated with a
# DeprecationWarning.
cfg.model.cuda_graph_scope = ["moe_router", "moe_preprocess"]

cfg.model.cuda_graph_warmup_steps = 3

# RNG tracker: required for any cuda_graph_impl != "none"; set it on both sides.
cfg.model.use_te_rng_tracker = True
cfg.rng.te_rng_tracker = True

# Optional later A/B once this runs: add "attn" to both lists -> attn, moe_router, moe_preprocess.
# If you switch to drop-and-pad MoE (moe_expert_capacity_factor + moe_pad_expert_input_to_capacity),
# ["moe"] alone becomes legal instead.
#
# Re-run `skill-tools validate --json` on the updated config before launching.
