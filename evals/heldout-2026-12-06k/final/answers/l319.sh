# 1) recommendation (human + agent-readable)
skill-tools recommend configs/qwen3_30b_a3b.yaml --mcore-version 0.19.2
skill-tools recommend configs/qwen3_30b_a3b.yaml --mcore-version 0.19.2 --json > rec.json
#   -> recommend: impl transformer_engine, scope moe_router,moe_preprocess
#      why: dropless MoE: expert token counts are data-dependent, so capture only the router and preprocessing
#      next: then add attn: --scope attn,moe_router,moe_preprocess
#      overrides: model.cuda_graph_impl=transformer_engine
#                 model.cuda_graph_modules=[moe_router,moe_preprocess]
#                 model.cuda_graph_scope=null
#                 rng.te_rng_tracker=true  model.use_te_rng_tracker=true

# 2) write era-correct overrides (0.19 -> cuda_graph_modules) into a copy
skill-tools apply configs/qwen3_30b_a3b.yaml --impl transformer_engine \
  --scope moe_router,moe_preprocess --mcore-version 0.19.2 --out configs/qwen3_30b_a3b.cg.yaml

# 3) check the result (expect "clean")
skill-tools validate configs/qwen3_30b_a3b.cg.yaml --mcore-version 0.19.2

# 4) later A/B: add attn on top, keep it only if replay steps get faster
#    skill-tools apply ... --scope attn,moe_router,moe_preprocess
