# Bridge run, megatron-core 0.16.1 — whole-iteration CUDA graph
python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config \
  model.cuda_graph_impl=full_iteration \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false
# full_iteration captures forward+backward as one graph; no per-layer scope needed.
