# Pre-launch CUDA-graph check for the Bridge MoE config (megatron-core 0.19).
#
# What `skill-tools validate` reports on the config as given
# (cuda_graph_impl=transformer_engine, cuda_graph_scope=[moe, moe_router], use_te_rng_tracker=False):
#   error   [moe-and-moe-router]        moe and moe_router cannot be combined
#                                       (MCore: "cuda_graph_modules must not contain both moe and moe_router.")
#   error   [te-rng-tracker-required]   TE RNG tracker must be on: model.use_te_rng_tracker=True, rng.te_rng_tracker=True
#   warning [deprecated-cuda-graph-scope] cuda_graph_scope is the 0.16-0.17 key; 0.19 uses cuda_graph_modules
#   (dropless model: also [moe-scope-needs-drop-pad], 'moe' needs drop-and-pad)
#
# Corrected settings (dropless MoE), written by the `fix` target below:
#   model.cuda_graph_impl: transformer_engine
#   model.cuda_graph_scope: null
#   model.cuda_graph_modules: [moe_router, moe_preprocess]
#   model.use_te_rng_tracker: true
#   rng.te_rng_tracker: true
# (drop-and-pad MoE only: cuda_graph_modules: [moe] on its own)

CFG          ?= conf/qwen3_moe_graphs.yaml
MCORE        ?= 0.19.2
SKILL_TOOLS  ?= skill-tools
LAUNCH_CMD   ?= sbatch jobs/qwen3_moe_pretrain.sbatch   # your usual launcher, reading $(CFG)

.PHONY: graph-check fix launch

## graph-check: fail the pipeline when the config has CUDA-graph errors (exit 1 = findings)
graph-check:
	$(SKILL_TOOLS) validate $(CFG) --mcore-version $(MCORE) --json > graph-check.json || \
	  (jq -r '.findings[] | "\(.severity) [\(.rule)] \(.message)"' graph-check.json; exit 1)

## fix: apply the validator's fix maps in place, then re-check
fix:
	$(SKILL_TOOLS) validate $(CFG) --mcore-version $(MCORE) --fix
	$(MAKE) graph-check

## launch: only after a clean check
launch: graph-check
	$(LAUNCH_CMD)
