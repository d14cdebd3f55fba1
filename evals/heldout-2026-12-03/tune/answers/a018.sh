# Qwen3-30B-A3B, Bridge, dropless MoE + alltoall, EP=8: enable TE CUDA graphs.
# The default coverage of the TE implementation is fine for a first try; the MoE
# router/preprocess scopes are an optimization for later.
python scripts/training/run_recipe.py \
    --recipe qwen3_30b_a3b_pretrain_config \
    model.expert_model_parallel_size=8 \
    model.moe_token_dispatcher_type=alltoall \
    model.cuda_graph_impl=transformer_engine \
    model.cuda_graph_warmup_steps=3 \
    model.use_te_rng_tracker=true \
    rng.te_rng_tracker=true
# Do NOT add "moe" to the graph modules: dropless shapes are dynamic.
