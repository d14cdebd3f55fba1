# The assert is Megatron Bridge's config validation (ConfigContainer.validate):
#   if cuda_graph_impl == "local" and CudaGraphScope.full_iteration in cuda_graph_scope:
#       assert not rerun_state_machine.check_for_nan_in_loss
# Cause: a full-iteration graph captures forward+backward as one graph. The NaN/Inf checks
# pull the loss (and the grad norm for the DDP check) back to the host, i.e. a CPU-GPU
# sync, and that can't live inside a captured graph. Turn off BOTH checks. Keep the
# megatron-core 0.16 spelling: local impl + ["full_iteration"] scope. There is no
# cuda_graph_impl="full_iteration" before 0.18; on 0.16 TransformerConfig would reject it
# ("Invalid cuda graph implementation").

# Bridge generic runner (scripts/training/run_recipe.py), OmegaConf dotlist overrides;
# keep your own --recipe and other overrides, just append these:
RECIPE=${RECIPE:?set RECIPE to your recipe function name}
torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe "$RECIPE" \
  model.cuda_graph_impl=local \
  'model.cuda_graph_scope=[full_iteration]' \
  model.cuda_graph_warmup_steps=3 \
  model.use_te_rng_tracker=true \
  rng.te_rng_tracker=true \
  rerun_state_machine.check_for_nan_in_loss=false \
  ddp.check_for_nan_in_grad=false

# Same fix in a Python recipe:
#   cfg.rerun_state_machine.check_for_nan_in_loss = False
#   cfg.ddp.check_for_nan_in_grad = False
#
# Same fix for plain Megatron-LM (pretrain_gpt.py) on core 0.16:
#   --cuda-graph-impl local --cuda-graph-scope full_iteration --no-check-for-nan-in-loss-and-grad
#   (arguments.py asserts "--no-check-for-nan-in-loss-and-grad should be set with full_iteration CUDA graph")
#
# After relaunch: capture happens after the warmup steps; compare step time on later
# iterations only. With the NaN checks off, watch loss / grad-norm yourself (logger
# alerts), because a NaN will no longer stop the run.
#
# Tip: `skill-tools logs <your.log>` recognises this assert signature if you want a
# quick triage of other lines in the same log.
