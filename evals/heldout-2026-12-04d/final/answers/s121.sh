# Hydra-style override list for run_recipe.py (megatron-core 0.19 / current Bridge).
# Cause: with TE graphs, the selective recompute of "moe" re-runs the MoE preprocessing that is
# captured by the moe_preprocess graph, and a recompute region may not re-enter a graphed one.
# moe_preprocess is the only captured piece that sits inside the recomputed MoE forward's
# dispatch path, so it comes out of the graph list; attn + moe_router stay graphed and the
# moe/layernorm recompute (your memory saving) is kept as is.
# (The message ends in "with: " because the hint "--cuda-graph-impl transformer_engine." is a
#  separate string statement in transformer_config.py.)

OVERRIDES=(
  model.cuda_graph_impl=transformer_engine
  model.cuda_graph_scope=null
  "model.cuda_graph_modules=[attn,moe_router]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
  model.recompute_granularity=selective
  "model.recompute_modules=[moe,layernorm]"
)

torchrun --nproc-per-node 8 scripts/training/run_recipe.py \
  --recipe qwen3_30b_a3b_pretrain_config --mode pretrain \
  "${OVERRIDES[@]}"
