# Full-iteration CUDA graph on megatron-core 0.16.1 + Megatron Bridge
# (cuda_graph_impl="full_iteration" is 0.18+ only, so on 0.16 you express it through
#  cuda_graph_scope; cuda_graph_modules doesn't exist yet either)
#
# full_iteration capture goes through TE's graph machinery, so keep impl=transformer_engine
# and put full_iteration in the scope list. NaN checks must be off because they sync to host.

torchrun --nproc-per-node=8 scripts/training/run_recipe.py \
  --recipe "$RECIPE" --mode pretrain \
  model.cuda_graph_impl=transformer_engine \
  'model.cuda_graph_scope=[full_iteration]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false

# keep seq length / micro batch size fixed; time only the iterations after capture.
