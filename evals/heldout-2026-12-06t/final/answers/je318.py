# Pre-launch check of the CUDA-graph part of your Bridge config, via the skill's Python API
# (same engine as `skill-tools validate`), pinned to the megatron-core 0.19 rules.
from skill_tools import validate

cfg = {
    "model": {
        "num_moe_experts": 8,
        "moe_token_dispatcher_type": "alltoall",
        "cuda_graph_impl": "transformer_engine",
        "cuda_graph_scope": ["moe", "moe_router"],
        "use_te_rng_tracker": False,
    }
}

report = validate(cfg, mcore_version="0.19.2")
for f in report.findings:
    print(f.severity, f.rule, "->", f.fix)
print("ok:", report.ok)

# Output:
#   error   moe-and-moe-router         -> {'model.cuda_graph_modules': ['moe_router'], 'model.cuda_graph_scope': None}
#   error   moe-scope-needs-drop-pad   -> {'model.cuda_graph_modules': ['moe_router', 'moe_preprocess'], 'model.cuda_graph_scope': None}
#   warning deprecated-cuda-graph-scope -> {'model.cuda_graph_impl': 'transformer_engine', 'model.cuda_graph_modules': ['moe', 'moe_router'], 'model.cuda_graph_scope': None}
#   info    te-rng-tracker-required    -> {'model.use_te_rng_tracker': True}
#   ok: False
#
# Reading it:
#   1. `moe` and `moe_router` are mutually exclusive: `moe` already includes the router
#      (MCore: "cuda_graph_modules must not contain both moe and moe_router.").
#   2. `moe` also needs drop-and-pad MoE; this config is dropless, so capture router + preprocess instead.
#   3. Graphs need TE's RNG tracker; Bridge's GPTModelProvider asserts it at model build.
#   4. cuda_graph_scope is the 0.16/0.17 key; on 0.19 the scope lives in cuda_graph_modules.
#
# Corrected settings for megatron-core 0.19. cuda_graph_modules is what 0.19 reads; cuda_graph_scope is
# kept with the same list so the config still loads in our 0.17-based tooling (0.19 just emits the
# DeprecationWarning for it and uses the modules list).
fixed = {
    "model": {
        "num_moe_experts": 8,
        "moe_token_dispatcher_type": "alltoall",
        "cuda_graph_impl": "transformer_engine",
        "cuda_graph_modules": ["moe_router", "moe_preprocess"],
        "cuda_graph_scope": ["moe_router", "moe_preprocess"],
        "use_te_rng_tracker": True,
    },
    "rng": {"te_rng_tracker": True},
}
# (For a drop-and-pad MoE, ["moe"] alone would be the other legal choice. Add "attn" later as an A/B.)
