# full-iteration CUDA graph on megatron-core 0.16.1 + Megatron Bridge
# (Hydra-style overrides appended to your Bridge training command)
#
# On 0.16/0.17 there is no cuda_graph_impl="full_iteration" and no cuda_graph_modules;
# full-iteration capture = impl "local" + scope ["full_iteration"].

OVERRIDES=(
  model.cuda_graph_impl=local
  "model.cuda_graph_scope=[full_iteration]"
  model.cuda_graph_warmup_steps=3
  model.use_te_rng_tracker=true
  rng.te_rng_tracker=true
  # NaN checks sync to host -> not allowed inside the captured iteration
  rerun_state_machine.check_for_nan_in_loss=false
  ddp.check_for_nan_in_grad=false
)

torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe "${RECIPE}" "${OVERRIDES[@]}"

# Python equivalent:
#   cfg.model.cuda_graph_impl = "local"
#   cfg.model.cuda_graph_scope = ["full_iteration"]
#   cfg.model.cuda_graph_warmup_steps = 3
#   cfg.model.use_te_rng_tracker = True
#   cfg.rng.te_rng_tracker = True
#   cfg.rerun_state_machine.check_for_nan_in_loss = False
#   cfg.ddp.check_for_nan_in_grad = False
#
# Keep seq_length / micro_batch_size fixed; time iterations after capture, not the capture step.
