# Checking your config before launch with the skill's validator (megatron-core 0.19 era).
# Your config as given, saved to a file:
$ cat cg.yaml
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: [moe, moe_router]
  use_te_rng_tracker: false

$ skill-tools validate cg.yaml --mcore-version 0.19.2 --json
# exit code 1 = findings. What it reports:
#   error    moe-and-moe-router        cuda_graph_modules must not contain both moe and moe_router.
#                                      -> pick one: moe_router (+ moe_preprocess) for dropless, moe only for drop-and-pad
#   error    te-rng-tracker-required   CUDA graphs need TE's graph-safe RNG tracker
#                                      -> model.use_te_rng_tracker=true, rng.te_rng_tracker=true
#   warning  deprecated-cuda-graph-scope  cuda_graph_scope is deprecated on 0.18+, use cuda_graph_modules
#                                      -> move the list to cuda_graph_modules and clear cuda_graph_scope
# (same from Python: `from skill_tools import validate`)

# Fixed config (dropless MoE assumed):
$ cat > cg_fixed.yaml <<'YAML'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_modules: [moe_router, moe_preprocess]   # or [moe] alone, only for drop-and-pad MoE
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
YAML

$ skill-tools validate cg_fixed.yaml --mcore-version 0.19.2 --json && echo clean
# -> no errors; launch. After launch confirm capture/replay in the log and A/B against eager.
