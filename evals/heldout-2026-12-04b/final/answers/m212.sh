#!/usr/bin/env bash
# Whole-iteration CUDA graph for megatron-core 0.16.1 + Megatron Bridge.
#
# On 0.16/0.17 there is no cuda_graph_impl="full_iteration" (that value arrives in 0.18).
# The legacy spelling is the *local* implementation with the special scope "full_iteration".
# Bridge's ConfigContainer.validate() refuses it while rerun_state_machine.check_for_nan_in_loss
# is still True, and the grad NaN check has to go too (it syncs to host inside the captured step).
set -euo pipefail

mkdir -p overrides
cat > overrides/full_iteration_graph.txt <<'OVR'
model.cuda_graph_impl=local
model.cuda_graph_scope=[full_iteration]
model.cuda_graph_warmup_steps=3
model.use_te_rng_tracker=true
rng.te_rng_tracker=true
rerun_state_machine.check_for_nan_in_loss=false
ddp.check_for_nan_in_grad=false
OVR

mapfile -t GRAPH_OVERRIDES < overrides/full_iteration_graph.txt

# Bridge's run_recipe.py takes any unknown args as OmegaConf CLI overrides.
torchrun --nproc_per_node=8 scripts/training/run_recipe.py \
  --recipe "${RECIPE:-llama3_8b_pretrain_config}" \
  "${GRAPH_OVERRIDES[@]}"

# Notes
# - Do not write cuda_graph_impl=full_iteration or cuda_graph_modules here: both are 0.18+ only.
# - Keep shapes static: fixed seq length, no packed/variable-length batches, no CPU offloading.
# - The whole iteration's activations live in the graph's private pool, so peak memory ends up
#   a bit above eager; make sure you have headroom first.
# - The first cuda_graph_warmup_steps iterations run eager, then the iteration is captured.
