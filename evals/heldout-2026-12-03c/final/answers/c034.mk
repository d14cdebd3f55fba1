# Makefile (excerpt) -- megatron-core 0.16.1, Megatron Bridge
RECIPE ?= llama3_8b_pretrain_config
NPROC  ?= 8

GRAPH_OVERRIDES = \
	model.cuda_graph_impl=local \
	'model.cuda_graph_scope=[full_iteration]' \
	model.cuda_graph_warmup_steps=3 \
	model.use_te_rng_tracker=true \
	rng.te_rng_tracker=true \
	ddp.check_for_nan_in_grad=false

.PHONY: train-fullgraph
train-fullgraph:  ## one CUDA graph for the whole fwd+bwd iteration
	torchrun --nproc-per-node $(NPROC) scripts/training/run_recipe.py \
		--recipe $(RECIPE) $(GRAPH_OVERRIDES)
