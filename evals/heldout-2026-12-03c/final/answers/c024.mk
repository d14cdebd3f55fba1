# drop-and-pad MoE: capacity 1.0 + padding -> static shapes, whole MoE block can be graphed
# megatron-core 0.19
MOE_GRAPH = \
	model.moe_expert_capacity_factor=1.0 \
	model.moe_pad_expert_input_to_capacity=true \
	model.cuda_graph_impl=transformer_engine \
	'model.cuda_graph_modules=[attn,moe_router,moe]' \
	model.use_te_rng_tracker=true rng.te_rng_tracker=true

train-moe-graphs:
	torchrun --nproc-per-node 8 scripts/training/run_recipe.py --recipe $(RECIPE) $(MOE_GRAPH)
