# "moe recompute is not supported with moe_router CUDA graph with: " -- the message ends
# in "with: " because the continuation string "--cuda-graph-impl transformer_engine." is a
# separate statement in transformer_config.py. Meaning: recomputing the whole moe module
# would re-run the graphed router. Keep the graphs, recompute only things outside them.
overrides = [
    "model.recompute_granularity=selective",
    "model.recompute_modules=[layernorm]",          # add moe_act too if moe_grouped_gemm is on
    "model.cuda_graph_impl=transformer_engine",
    "model.cuda_graph_modules=[attn,moe_router,moe_preprocess]",   # 0.19; cuda_graph_scope on 0.16/0.17
]
