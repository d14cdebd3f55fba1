# 1) Put your settings in a file the validator can read and check them against
#    megatron-core 0.19 (pin the era so the result doesn't depend on what's installed here).
cat > /tmp/graphs_check.yaml <<'EOF'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: [moe, moe_router]
  use_te_rng_tracker: false
EOF

skill-tools validate --json --mcore-version 0.19.2 /tmp/graphs_check.yaml
echo "exit=$?"      # 0 clean, 1 findings, 2 bad input

# What it flags for this config, and why (read findings[].rule / message / fix):
#
#  - moe-and-moe-router (error). MCore asserts at config time:
#      "cuda_graph_modules must not contain both moe and moe_router."
#    `moe` graphs the whole MoE block and `moe_router` a piece of it, so one region
#    would be captured twice. Pick one:
#      dropless MoE (no capacity factor)          -> [moe_router, moe_preprocess]
#      drop-and-pad (moe_expert_capacity_factor set
#        + moe_pad_expert_input_to_capacity=True)  -> [moe]
#
#  - te-rng-tracker-required (error). Bridge asserts at model build
#    ("Transformer engine's RNG tracker is required for cudagraphs, ...") for any
#    cuda_graph_impl other than "none". Needs model.use_te_rng_tracker=True and
#    rng.te_rng_tracker=True.
#
#  - deprecated-cuda-graph-scope (warning). On 0.18+ the list belongs in
#    cuda_graph_modules. cuda_graph_scope still loads with a DeprecationWarning,
#    but setting both keys asserts, so clear the old one.
#
# Let apply write the era-correct keys instead of hand-editing:
skill-tools apply --json /tmp/graphs_check.yaml --impl transformer_engine --scope moe_router,moe_preprocess

# 2) Fixed config for 0.19 (dropless MoE, the common case):
cat > /tmp/graphs_fixed.yaml <<'EOF'
model:
  cuda_graph_impl: transformer_engine
  cuda_graph_scope: null
  cuda_graph_modules: [moe_router, moe_preprocess]   # add attn later as an A/B
  cuda_graph_warmup_steps: 3
  use_te_rng_tracker: true
rng:
  te_rng_tracker: true
EOF
# (drop-and-pad instead: cuda_graph_modules: [moe] with moe_expert_capacity_factor set
#  and moe_pad_expert_input_to_capacity: true)

skill-tools validate --json --mcore-version 0.19.2 /tmp/graphs_fixed.yaml   # expect exit 0

# Before launching, also check your real config for things this snippet can't see:
# full activation recompute (recompute_granularity=full only works with full-iteration graphs),
# `moe` in recompute_modules (not allowed with a moe_router graph), and, with the alltoall
# dispatcher, a capacity factor without padding to capacity (or moe_router_padding_for_fp8) makes
# moe_preprocess illegal (host syncs in preprocess). Run validate on the whole recipe file, not just
# these keys.
