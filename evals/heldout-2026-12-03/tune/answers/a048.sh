# Bridge on megatron-core 0.17: the impl value "full_iteration" is 0.18+, but the
# module list is already there, so put the full-iteration marker into it.
python scripts/training/run_recipe.py --recipe "$RECIPE" \
  model.cuda_graph_impl=local \
  'model.cuda_graph_modules=[full_iteration]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false
